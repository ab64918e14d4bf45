"""What a run of caller scripts came to: each run of a script (:class:`ScriptResult`), each
script over its runs (:class:`ScriptRuns`, ``sandbox test --repeat N``) and the whole run.

A run *fails* when an expectation does not hold or a step could not be carried out; it is
*broken* when the brain could not be reached or a rule of the wire was broken. A script
run more than once is *flaky* when some of its runs passed and some did not: not passed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sandbox.caller.expect import Answer, Failure
from sandbox.record.latency_text import percentile
from sandbox.record.plain_text import visible

PASSED, FAILED, BROKEN, FLAKY = "passed", "failed", "broken", "flaky"
#: The reply-time percentiles a repeated script reports, by name.
REPLY_PERCENTILES = (("p50", 0.50), ("p90", 0.90), ("p99", 0.99))


@dataclass(frozen=True)
class ScriptResult:
    """One script's run: its failed expectations, or why it could not be judged."""

    path: Path
    seconds: float
    failures: tuple[Failure, ...] = ()
    #: Rules of the wire the brain broke in the call, in words (each makes it broken).
    rule_breaks: tuple[str, ...] = ()
    #: Why the brain could not be reached, if it could not.
    unreachable: str | None = None
    session_id: str | None = None
    #: The answer to each step that minted a turn, by step number (for the JSON file).
    answers: tuple[tuple[int, Answer], ...] = ()

    @property
    def status(self) -> str:
        """passed, failed (an expectation), or broken (the brain unreachable, a wire rule)."""
        if self.unreachable is not None or self.rule_breaks:
            return BROKEN
        return FAILED if self.failures else PASSED

    @property
    def problems(self) -> list[str]:
        """Every reason it did not pass, one line each, safe to print."""
        lines = [f"wire rule broken: {rule}" for rule in self.rule_breaks]
        if self.unreachable is not None:
            lines.insert(0, f"the brain could not be reached: {visible(self.unreachable)}")
        return lines + [str(f) for f in self.failures]


@dataclass(frozen=True)
class ScriptRuns:
    """One script's runs, in the order they were started."""

    path: Path
    runs: tuple[ScriptResult, ...]

    @property
    def status(self) -> str:
        """passed (every run), flaky (some passed, some not), else broken when a run was,
        failed when none was."""
        statuses = {r.status for r in self.runs}
        if statuses == {PASSED}:
            return PASSED
        if PASSED in statuses:
            return FLAKY
        return BROKEN if BROKEN in statuses else FAILED

    @property
    def passed(self) -> int:
        """How many of its runs passed."""
        return sum(r.status == PASSED for r in self.runs)

    @property
    def pass_rate(self) -> float:
        """The share of its runs that passed, 0 to 1."""
        return self.passed / len(self.runs)

    @property
    def seconds(self) -> float:
        """Its runs' time, added up."""
        return sum(r.seconds for r in self.runs)

    @property
    def reply_ms(self) -> list[int]:
        """Every answered turn's reply time over all its runs (a turn with no audio has none)."""
        return [a.reply_ms for r in self.runs for _, a in r.answers if a.reply_ms is not None]

    def reply_percentiles(self) -> dict[str, int | None]:
        """p50, p90 and p99 of :attr:`reply_ms` (None each when no turn was answered)."""
        times = self.reply_ms
        return {name: percentile(times, q) if times else None for name, q in REPLY_PERCENTILES}


@dataclass(frozen=True)
class Run:
    """Every script's runs, in the order the scripts were found."""

    scripts: tuple[ScriptRuns, ...] = field(default_factory=tuple)
    #: How many times each script was run (``--repeat``).
    repeat: int = 1

    @property
    def results(self) -> tuple[ScriptResult, ...]:
        """Every run of every script, script by script."""
        return tuple(r for script in self.scripts for r in script.runs)

    @property
    def exit_status(self) -> int:
        """0 every run of every script passed, 1 a run failed an expectation (a flaky
        script too), 2 a run was broken."""
        statuses = {r.status for r in self.results}
        return 2 if BROKEN in statuses else 1 if FAILED in statuses else 0
