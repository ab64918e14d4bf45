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
from typing import Any

from sandbox.call.core import CallCore
from sandbox.call.floor import measure
from sandbox.call.outcome import Outcome
from sandbox.judges import names, promises
from sandbox.judges.entities import Value, values
from sandbox.judges.readback import BotLine, CallerTurn, judge
from sandbox.record.report import AddressedAs, CallRecord, ValueHeard, ValueReadBack

#: What a finding's ``kind`` is, in the record and as a stored event.
NAME_NOT_FROM_CALLER = "name_not_from_caller"
CALLED_THE_CALLER = "called_the_caller"
PROMISED_UNBOOKED = "promised_unbooked"
NAME_REFUSED = "name_refused"
#: A unit Voqalize could not say all of (a clause its synthesizer failed on, a voice that
#: would not load): the runtime's own fault, heard by the caller as speech that stopped.
SPEECH_UNSAID = "speech_unsaid"


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
    events = list(_kept(heard))
    entities = [data for kind, data in events if kind == "entity_heard"]
    readbacks = [data for kind, data in events if kind == "entity_readback"]
    found = [data for kind, data in events if kind not in ("entity_heard", "entity_readback")]
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
        entities=tuple(ValueHeard(**data) for data in entities),
        readbacks=tuple(ValueReadBack(**data) for data in readbacks),
        addressed_as=tuple(
            AddressedAs(word, unit.speech_id)
            for unit in heard.bot
            for word in names.addressed_as(unit.heard)
            if reached and not names.is_form_of_address(word)
        ),
        findings=tuple(found),
    )


def _kept(heard: Heard) -> Iterator[tuple[str, dict[str, Any]]]:
    """The findings the record keeps: every one; of a call not reached, only what the runtime
    could not say (the fault's own account), never a fact about the caller."""
    for kind, data in _findings(heard):
        if heard.outcome is not Outcome.NOT_REACHED or kind == SPEECH_UNSAID:
            yield kind, data


def _findings(heard: Heard) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every event the record decides from ``heard``, in a stable order; one not yet
    decidable (a read-back still playing, a promise on the current turn) is left out."""
    for caller in heard.callers:
        refused = names.refused(caller.text)
        if refused is not None:
            yield NAME_REFUSED, {"kind": NAME_REFUSED, "turn": caller.turn_id, "word": refused}
        for value in values(caller.text):
            yield "entity_heard", _value_data(caller.turn_id, value)
            verdict = judge(value, caller.turn_id, heard.bot, heard.callers, ended=heard.ended)
            if verdict is not None:
                yield (
                    "entity_readback",
                    {
                        **_value_data(caller.turn_id, value),
                        "status": verdict.status,
                        "speech_id": verdict.speech_id,
                        "reply_turn": verdict.reply_turn,
                    },
                )
    for speech_id, turn, why in heard.unsaid:
        yield (
            SPEECH_UNSAID,
            {"kind": SPEECH_UNSAID, "speech_id": speech_id, "turn": turn, "detail": why},
        )
    for unit in heard.bot:
        if not unit.final:
            continue
        earlier = [c.text for c in heard.callers if c.turn_id <= unit.turn_id]
        for word in names.addressed_as(unit.heard):
            if names.is_form_of_address(word):
                continue
            if not names.said_by_caller(word, earlier):
                yield (
                    NAME_NOT_FROM_CALLER,
                    {
                        "kind": NAME_NOT_FROM_CALLER,
                        "speech_id": unit.speech_id,
                        "name": word,
                        "detail": f"the bot called the caller {word!r}, a name they never said",
                    },
                )
        if names.calls_them_the_caller(unit.heard):
            yield (
                CALLED_THE_CALLER,
                {
                    "kind": CALLED_THE_CALLER,
                    "speech_id": unit.speech_id,
                    "detail": f"the bot said {'the caller'!r}: {unit.heard!r}",
                },
            )
        # A tool step may land after the words: judge once the turn is behind the call.
        settled = heard.ended or heard.turn > unit.turn_id
        if settled and promises.promises_follow_up(unit.heard):
            kinds = [kind for turn, kind in heard.steps if turn == unit.turn_id]
            if not promises.booked(kinds):
                yield (
                    PROMISED_UNBOOKED,
                    {
                        "kind": PROMISED_UNBOOKED,
                        "speech_id": unit.speech_id,
                        "turn": unit.turn_id,
                        "detail": f"promised with no tool step on turn {unit.turn_id}: "
                        f"{unit.heard!r}",
                    },
                )


def _value_data(turn: int, value: Value) -> dict[str, Any]:
    return {"turn": turn, "kind": value.kind, "value": value.value, "said": value.said}


@dataclass
class RecordTracker:
    """The record's events while the call runs: each decided finding once, when decided."""

    _seen: set[str] = field(default_factory=set)
    _mark: tuple[int, int, int, bool] = (-1, -1, -1, False)

    def update(self, core: CallCore) -> list[tuple[str, dict[str, Any]]]:
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
        fresh = []
        for kind, data in _kept(heard_from(core)):
            key = f"{kind}:{sorted(data.items())}"
            if kind == "entity_readback":  # decided once; its status never changes after
                key = f"{kind}:{data['turn']}:{data['kind']}:{data['value']}"
            if key not in self._seen:
                self._seen.add(key)
                fresh.append((kind, data))
        return fresh
