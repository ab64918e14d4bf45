"""Running the conformance suite: one real call per scenario against a running brain."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence

from sandbox.call.ledger_records import WireErrorRecord
from sandbox.check import rules
from sandbox.check.results import Finding, ScenarioResult
from sandbox.check.scenarios import SCENARIOS, Scenario
from sandbox.check.wirelog import WireLog
from sandbox.harness.driver import DriverError, VoqalizeDriver

#: The simulated speaking rate: quick, yet slow enough for a barge-in to land mid-unit.
CHECK_MS_PER_WORD = 30
#: A real model may be slow: how long a turn may go unanswered, and a step may wait.
ANSWER_WITHIN_MS = 10_000
STEP_TIMEOUT_S = 15.0
_ENDED_BY_BRAIN = ("brain", "brain_closed", "brain_cancel", "brain_error")


async def check_brain(
    brain_url: str, *, relay: bool = False, scenarios: Sequence[Scenario] = SCENARIOS
) -> list[ScenarioResult]:
    """Run every scenario, each its own call (side by side, as Voqalize's calls are)."""
    return list(await asyncio.gather(*(run_scenario(brain_url, s, relay=relay) for s in scenarios)))


async def run_scenario(brain_url: str, scenario: Scenario, *, relay: bool) -> ScenarioResult:
    """One call: play the scenario's steps, let the bot finish, hang up, judge the record."""
    driver = VoqalizeDriver(
        brain_url=brain_url,
        relay=relay,
        ms_per_word=CHECK_MS_PER_WORD,
        answer_within_ms=ANSWER_WITHIN_MS,
        step_timeout_s=STEP_TIMEOUT_S,
    )
    notes: list[str] = []
    async with driver:
        try:
            for step in scenario.steps:
                await driver.play(step)
        except DriverError as exc:
            notes.append(f"the caller could not go on: {exc}")
        try:
            await driver.settle()
        except DriverError as exc:
            notes.append(f"the bot never finished: {exc}")
    log = WireLog(driver.records)
    verdict = scenario.judge(log, driver.units)
    findings = log.findings + verdict.findings
    answers = _answers(driver.errors)
    if findings:  # each answer is the runtime's side of a finding above
        notes += [finding.detail for finding in answers]
    else:
        findings = answers
    ended = driver.ended
    if ended is not None and ended.ended_by in _ENDED_BY_BRAIN:
        notes.append(f"the call was ended by {ended.ended_by}: {ended.detail or 'no reason'}")
    notes += [_brain_error(e) for e in driver.errors if e.dir == "in"]
    return ScenarioResult(
        scenario.name,
        scenario.title,
        findings=findings,
        not_exercised=verdict.not_exercised,
        notes=notes + log.notes + verdict.notes,
    )


def _answers(errors: Sequence[WireErrorRecord]) -> list[Finding]:
    """The Errors Voqalize sent the brain (the runtime refusing a frame), once each."""
    seen: Counter[tuple[str, str]] = Counter()
    first: dict[tuple[str, str], int] = {}
    for error in errors:
        if error.dir == "out":
            key = (error.code.removeprefix("ERROR_CODE_"), error.message)
            seen[key] += 1
            first.setdefault(key, error.t_ms)
    return [
        Finding(
            rules.BINARY_ONLY if code == "MALFORMED" else rules.OWES_THE_INVARIANTS,
            f"Voqalize answered with a {code} Error{f' ({n} times)' if n > 1 else ''}: {message}",
            first[(code, message)],
        )
        for (code, message), n in seen.items()
    ]


def _brain_error(error: WireErrorRecord) -> str:
    fatal = " (fatal)" if error.fatal else ""
    return f"the brain reported {error.code.removeprefix('ERROR_CODE_')}{fatal}: {error.message}"
