"""The conformance scenarios: what the caller does in each call, and how it is judged.

Each scenario is one call. Its caller side is plain caller-script steps; its judge
reads the call's :class:`~sandbox.check.wirelog.WireLog` (the core's records of it) and the
units as the driver saw them play. The rules that hold on every frame are checked by the
WireLog in every scenario; a judge adds only what its scenario is for, and says "not exercised" when
the brain could not be steered into it (nothing makes an arbitrary brain cancel,
configure or call a tool) rather than failing it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sandbox.caller.script import Step
from sandbox.check import rules
from sandbox.check.results import Finding
from sandbox.check.wirelog import DEAD_TURN_GRACE_MS, WireLog
from sandbox.harness.driver import HeardUnit

#: Words of a reply that play before the barge-in scenario talks over it.
BARGE_AFTER_WORDS = 3


@dataclass
class Verdict:
    """What a judge found beyond the every-frame rules."""

    findings: list[Finding] = field(default_factory=list)
    not_exercised: str | None = None
    notes: list[str] = field(default_factory=list)


Judge = Callable[[WireLog, Sequence[HeardUnit]], Verdict]


@dataclass(frozen=True)
class Scenario:
    """One call of the suite: a name, what it checks, the caller's steps, the judge."""

    name: str
    title: str
    steps: tuple[Step, ...]
    judge: Judge


def _greeting(log: WireLog, units: Sequence[HeardUnit]) -> Verdict:
    first = log.caller_turns[0] if log.caller_turns else None
    greeting = [u for u in log.units.values() if first is None or u.index < first[1]]
    if not greeting:
        return Verdict(not_exercised="the brain did not greet (a greeting is optional)")
    verdict = Verdict()
    if first is None:
        return verdict
    turn, at = first
    for unit in log.units.values():
        if unit.index > at and unit.turn_id < turn:
            verdict.findings.append(
                Finding(
                    rules.SPEECH_NAMES_TURN,
                    f"unit {unit.speech_id} opened after the greeting had played and the "
                    f"caller spoke (turn {turn}), but names turn {unit.turn_id}",
                    unit.opened_ms,
                )
            )
    if not any(u.text for u in log.units_on(turn)):
        verdict.notes.append(f"the brain said nothing on turn {turn}")
    return verdict


def _brackets(log: WireLog, units: Sequence[HeardUnit]) -> Verdict:
    caller = {turn for turn, _ in log.caller_turns}
    if not any(u.text for u in log.units.values() if u.turn_id in caller):
        return Verdict(not_exercised="the brain said nothing on the caller's turns")
    return Verdict()


def _tool_hop(log: WireLog, units: Sequence[HeardUnit]) -> Verdict:
    if not log.caller_turns:
        return Verdict(not_exercised="the caller's turn was never sent")
    turn = log.caller_turns[0][0]
    tools = [
        str(s.get("name", "?"))
        for s in log.steps
        if s.get("kind") == "tool" and s.get("turn_id") == turn
    ]
    if not tools and turn not in log.rtvi_turns:
        return Verdict(
            not_exercised=f"no sign of a tool on turn {turn} (no TurnStep of kind tool, "
            "no RTVI frame for the turn)"
        )
    verdict = Verdict(notes=[f"tool hop seen on turn {turn}: {', '.join(tools) or 'RTVI'}"])
    if not any(u.text for u in log.units_on(turn)):
        verdict.notes.append(f"the brain said nothing on turn {turn} after its tool")
    return verdict


def _barge_in(log: WireLog, units: Sequence[HeardUnit]) -> Verdict:
    if len(log.caller_turns) < 2:
        return Verdict(not_exercised="the barge-in did not happen")
    dead, live = log.caller_turns[0][0], log.caller_turns[1][0]
    cut = [u for u in units if u.turn_id == dead and u.fate == "barged" and u.heard]
    if not cut:
        return Verdict(
            not_exercised=f"no unit answering turn {dead} was still playing after "
            f"{BARGE_AFTER_WORDS} words"
        )
    verdict = Verdict()
    if not any(u.text for u in log.units.values() if u.turn_id >= live):
        verdict.findings.append(
            Finding(
                rules.NEXT_TURN_IS_LIVE,
                f"after the barge-in killed turn {dead}, no unit answered the caller's turn {live}",
            )
        )
    return verdict


def _cancel(log: WireLog, units: Sequence[HeardUnit]) -> Verdict:
    cancelled = [u for u in log.units.values() if u.cancel_index is not None]
    if not cancelled:
        return Verdict(not_exercised="the brain sent no SpeechCancel")
    verdict = Verdict()
    for unit in cancelled:
        assert unit.cancel_index is not None
        sid = unit.speech_id
        if len(unit.finalizes) != 1:
            verdict.findings.append(
                Finding(
                    rules.ONE_FINALIZE,
                    f"cancelled unit {sid} got {len(unit.finalizes)} Finalizes from Voqalize "
                    "(the runtime)",
                )
            )
            continue
        answered = unit.finalizes[0][0]
        if any(unit.cancel_index < at < answered for _, _, at in log.interruptions):
            verdict.findings.append(
                Finding(
                    rules.CANCEL_IS_NOT_BARGE_IN,
                    f"Voqalize (the runtime) sent an Interruption between the SpeechCancel "
                    f"of unit {sid} and its Finalize",
                )
            )
    return verdict


def _config(log: WireLog, units: Sequence[HeardUnit]) -> Verdict:
    if not log.requests:
        return Verdict(not_exercised="the brain sent no Request")
    notes = [
        f"Request {rid}: {status.removeprefix('STATUS_')}" + (f" ({detail})" if detail else "")
        for rid, answers in log.requests.items()
        for status, detail in answers
    ]
    return Verdict(notes=notes)


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "greeting",
        "greeting pairing: the greeting on turn 1, the answer on the caller's turn",
        (Step("say", text="Hello!"),),
        _greeting,
    ),
    Scenario(
        "brackets",
        "empty and lazy brackets: every unit balanced, carries text, gets one Finalize",
        (Step("say", text="Hi there."), Step("type", text="Thanks, that's all for now.")),
        _brackets,
    ),
    Scenario(
        "tool-hop",
        "a tool-only hop opens no unit",
        (Step("say", text="What are your prices? Please put them on my screen."),),
        _tool_hop,
    ),
    Scenario(
        "barge-in",
        "barge-in mid-unit: the dead turn stops, the answer comes on the new turn",
        (
            Step("say", text="Can you tell me everything you can help me with, in detail?"),
            Step("barge_in", text="Sorry, where are you, exactly?", after_words=BARGE_AFTER_WORDS),
            # Long enough to see a dead turn's speech that should have stopped.
            Step("silence_ms", ms=DEAD_TURN_GRACE_MS + 500),
        ),
        _barge_in,
    ),
    Scenario(
        "cancel",
        "cancel: a SpeechCancel gets one Finalize and no Interruption",
        (
            Step("say", text="What's the card number on my account?"),
            Step("say", text="And what's my balance?"),
        ),
        _cancel,
    ),
    Scenario(
        "config",
        "config round trip: one Response per Request",
        (Step("say", text="Could you speak a little more slowly, please?"),),
        _config,
    ),
)
