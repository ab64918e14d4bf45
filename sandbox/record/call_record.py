"""The call record: what a call leaves behind, judged on what the caller heard.

Built from the session as the core holds it — caller lines, each bot unit's *heard* text
(its Finalize prefix, never the generated text), the TurnSteps — into the report's
``record`` (a :class:`~sandbox.record.report.CallRecord`): the outcome kept distinct (with
the reason when the call was not reached), the thin-call floor, the values spoken aloud
and their read-backs, the names, and the promises. :class:`RecordTracker` gives the same
findings as events while the call runs, each once, the moment it is decided, so the
session store holds them as they happened.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from sandbox.call.core import CallCore
from sandbox.call.floor import measure
from sandbox.call.outcome import Outcome
from sandbox.judges import names, promises
from sandbox.judges.entities import values
from sandbox.judges.readback import BotLine, CallerTurn, judge
from sandbox.record.report import (
    AddressedAs,
    CalledTheCaller,
    CallRecord,
    Finding,
    NameNotFromCaller,
    NameRefused,
    PromisedUnbooked,
    SpeechUnsaid,
    ValueHeard,
    ValueReadBack,
)

#: What the record decides, each kept as an event of its own while the call runs.
Judged = ValueHeard | ValueReadBack | Finding


@dataclass(frozen=True)
class Heard:
    """A call as the record reads it (see :func:`heard_from`)."""

    callers: tuple[CallerTurn, ...]
    bot: tuple[BotLine, ...]
    #: (turn, kind) of every TurnStep.
    steps: tuple[tuple[int, str], ...]
    turn: int  # the last turn minted
    ended: bool
    outcome: Outcome
    reason: str = ""
    #: (speech_id, turn, why) of every sealed unit the playout could not say all of.
    unsaid: tuple[tuple[int, int, str], ...] = ()


def heard_from(core: CallCore) -> Heard:
    """What the record needs from a running or finished call."""
    ended = core.ended
    verdict = core.verdict()
    ledger = core.ledger
    return Heard(
        callers=tuple(
            CallerTurn(turn, text)
            for turn, text in zip(ledger.caller_closes, ledger.caller_lines, strict=True)
        ),
        bot=tuple(
            BotLine(u.speech_id, u.turn_id, u.generated, u.heard, u.fate is not None)
            for u in core.units
        ),
        steps=tuple((s.turn_id, s.kind) for s in ledger.steps),
        turn=core.turn,
        ended=ended is not None,
        outcome=ended.outcome if ended else verdict.word,
        reason=verdict.reason,
        unsaid=tuple(
            (u.speech_id, u.turn_id, u.unspoken)
            for u in core.units
            if u.unspoken and u.fate is not None
        ),
    )


def build(heard: Heard) -> CallRecord:
    """The record of the call ``heard`` describes (see the module doc). A call not reached
    keeps its reason and no facts: "not_reached — it never rang at all: no lead, no facts"
    (003), whatever the caller said into the silence."""
    floor = measure([c.text for c in heard.callers])
    reached = heard.outcome is not Outcome.NOT_REACHED
    judged = list(_kept(heard))
    introduced = (names.introduced(c.text) for c in heard.callers if reached)
    caller_name = next((n for n in introduced if n is not None), None)
    return CallRecord(
        outcome=heard.outcome,
        reason=heard.reason,
        below_floor=floor.below,
        floor=floor.why,
        caller_lines=floor.lines,
        caller_words=floor.words,
        summary=(
            "skipped: the call was not reached (an operational fault, not an outcome); "
            "nothing is learned from a line that never rang"
            if not reached
            else f"skipped: {floor.why}; nothing summarises a call this thin"
            if floor.below
            else "allowed"
        ),
        caller_name=caller_name,
        entities=tuple(j for j in judged if isinstance(j, ValueHeard)),
        readbacks=tuple(j for j in judged if isinstance(j, ValueReadBack)),
        addressed_as=tuple(
            AddressedAs(word, unit.speech_id)
            for unit in heard.bot
            for word in names.addressed_as(unit.heard)
            if reached and not names.is_form_of_address(word)
        ),
        findings=tuple(j for j in judged if not isinstance(j, ValueHeard | ValueReadBack)),
    )


def _kept(heard: Heard) -> Iterator[Judged]:
    """The findings the record keeps: every one; of a call not reached, only what the runtime
    could not say (the fault's own account), never a fact about the caller."""
    for judged in _findings(heard):
        if heard.outcome is not Outcome.NOT_REACHED or isinstance(judged, SpeechUnsaid):
            yield judged


def _findings(heard: Heard) -> Iterator[Judged]:
    """Every event the record decides from ``heard``, in a stable order; one not yet
    decidable (a read-back still playing, a promise on the current turn) is left out."""
    for caller in heard.callers:
        refused = names.refused(caller.text)
        if refused is not None:
            yield NameRefused(caller.turn_id, refused)
        for value in values(caller.text):
            yield ValueHeard(caller.turn_id, value.kind, value.value, value.said)
            verdict = judge(value, caller.turn_id, heard.bot, heard.callers, ended=heard.ended)
            if verdict is not None:
                yield ValueReadBack(
                    caller.turn_id,
                    value.kind,
                    value.value,
                    value.said,
                    verdict.status,
                    verdict.speech_id,
                    verdict.reply_turn,
                )
    for speech_id, turn, why in heard.unsaid:
        yield SpeechUnsaid(speech_id, turn, why)
    for unit in heard.bot:
        if not unit.final:
            continue
        earlier = [c.text for c in heard.callers if c.turn_id <= unit.turn_id]
        for word in names.addressed_as(unit.heard):
            if names.is_form_of_address(word):
                continue
            if not names.said_by_caller(word, earlier):
                yield NameNotFromCaller(
                    unit.speech_id,
                    word,
                    f"the bot called the caller {word!r}, a name they never said",
                )
        if names.calls_them_the_caller(unit.heard):
            yield CalledTheCaller(unit.speech_id, f"the bot said {'the caller'!r}: {unit.heard!r}")
        # A tool step may land after the words: judge once the turn is behind the call.
        settled = heard.ended or heard.turn > unit.turn_id
        if settled and promises.promises_follow_up(unit.heard):
            kinds = [kind for turn, kind in heard.steps if turn == unit.turn_id]
            if not promises.booked(kinds):
                yield PromisedUnbooked(
                    unit.speech_id,
                    unit.turn_id,
                    f"promised with no tool step on turn {unit.turn_id}: {unit.heard!r}",
                )


@dataclass
class RecordTracker:
    """The record's events while the call runs: each decided finding once, when decided."""

    _seen: set[Judged | tuple[int, str, str]] = field(default_factory=set)
    _mark: tuple[int, int, int, bool] = (-1, -1, -1, False)

    def update(self, core: CallCore) -> list[Judged]:
        """The findings decided since the last update (none when nothing that decides one
        has changed: a caller line, a unit's Finalize, a new turn, the end)."""
        mark = (
            len(core.ledger.caller_lines),
            sum(u.fate is not None for u in core.units),
            core.turn,
            core.ended is not None,
        )
        if mark == self._mark:
            return []
        self._mark = mark
        fresh: list[Judged] = []
        for judged in _kept(heard_from(core)):
            key: Judged | tuple[int, str, str] = judged
            if isinstance(judged, ValueReadBack):  # decided once; its status never changes
                key = (judged.turn, judged.kind, judged.value)
            if key not in self._seen:
                self._seen.add(key)
                fresh.append(judged)
        return fresh
