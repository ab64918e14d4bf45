"""The core's records for a session stored before the core kept them: the one read path
for old sessions.

A session stored by an older build has its frames and the playout's events, but none of the
core's records of its units (:mod:`sandbox.call.unit_records`) or of its turns and the
brain's wire (:mod:`sandbox.call.turn_records`). :class:`RecordsFromFrames` works them out
once, from the frames in the order they crossed and the playout's events between them, by
the core's own rules, so every reader folds the same records whatever build stored the call.
The turn records are the frames themselves, said as the core says them: each turn minted
(SessionStart, UserMessage with its text, UserIdle), each unit the brain closed, each
Finalize sent, each TurnStep taken (when the session offered them) and each error.

The core seals a unit's fate at the moment of its cause, and most causes leave a frame at that
very moment: a SpeechStart for a turn already at or below the watermark (``dead``), a
SpeechEnd or the brain's End closing a unit with nothing relayed (``silent``), a SpeechCancel
the session honours (``cancelled``, the whole floor), an Interruption (``barged``, everything
in play). The rest show only once the unit's Finalize went out: every word of a closed unit
heard is ``played``, a unit the playout could not speak is ``unspoken`` (its event may follow
the Finalize at the same instant, so the units it names are given up front), and anything else
the end of the call cut (``abandoned``). A unit's heard text is its Finalize's, the core's word
(given up front too: a word played in the millisecond of a cut may be stored after the cut's
frame), or, with no Finalize yet, the words played walked through its text as the core walks them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sandbox.call.effects import SpeakText
from sandbox.call.heard import HeardCursor
from sandbox.call.ledger_records import StepRecord, WireErrorRecord
from sandbox.call.played import WordPlayed
from sandbox.call.turn_records import (
    BracketClosed,
    FinalizeSent,
    TurnKind,
    TurnRecord,
    TurnSent,
)
from sandbox.call.unit_records import TextKept, UnitOpened, UnitSealed, WatermarkRaised
from sandbox.call.units import Bracket, Fate
from sandbox.wire import pb
from sandbox.wire.direction import direction as read_direction

_HONOURS_CANCEL = pb.Capability.Name(pb.CAPABILITY_SPEECH_CANCEL)
_TAKES_STEPS = pb.Capability.Name(pb.CAPABILITY_TURN_STEPS)
#: The turn each minting frame sends, by its arm.
_MINTS = {"session_start": TurnKind.GREETING, "user_message": TurnKind.CALLER}

Frame = tuple[str, str, Mapping[str, Any]]
"""A stored frame as read here: its direction from the runtime's side, its arm, its fields."""

OldRecord = UnitOpened | SpeakText | TextKept | UnitSealed | WatermarkRaised | TurnRecord
"""What an old session's frames yield: the core's records and the text it relayed."""


@dataclass
class _Seen:
    """One unit as the wire showed it."""

    turn_id: int
    relayed: HeardCursor = field(default_factory=HeardCursor)
    bracket: Bracket = Bracket.OPEN
    sealed: bool = False


class RecordsFromFrames:
    """Fed an old session's frames in the order they crossed (``dir`` from the runtime's
    side, ``type`` the envelope's arm, ``fields`` as described) and the words its playout
    released, yields the records the core would have kept; see the module doc."""

    def __init__(self, frames: Iterable[Frame], unspoken: Collection[int]) -> None:
        """``frames``: all the session's frames, for its Finalizes' heard text (the frames
        are then fed one by one to :meth:`frame`); ``unspoken``: the units the playout could
        not speak, or a clause of (its events)."""
        self._unspoken = frozenset(unspoken)
        self._finalized: dict[int, str] = {}
        for direction, kind, fields in frames:
            if (direction, kind) == ("out", "finalize"):
                sid = stored_int(fields.get("speech_id"))
                self._finalized.setdefault(sid, str(fields.get("heard_text", "")))
        self._watermark = 0
        # A session whose SessionStart did not offer SpeechCancel plays a cancelled unit out.
        self._honours_cancel = True
        self._takes_steps = True
        self._minted = 0
        self._units: dict[int, _Seen] = {}

    def word(self, played: WordPlayed) -> None:
        """The playout released a word: a unit in play heard it, as the core walks it."""
        unit = self._units.get(played.speech_id)
        if unit is not None and not unit.sealed:
            unit.relayed.played(played.word)

    def frame(
        self, direction: str, kind: str, fields: Mapping[str, Any], t_ms: int = 0
    ) -> list[OldRecord]:
        """One frame, which crossed at ``t_ms``: the records it yields, in order."""
        return self._turn_records(direction, kind, fields, t_ms) + self._unit_records(
            direction, kind, fields
        )

    def _turn_records(
        self, direction: str, kind: str, fields: Mapping[str, Any], t_ms: int
    ) -> list[OldRecord]:
        """The records of the turns and the brain's wire a frame yields (module doc)."""
        sid = stored_int(fields.get("speech_id"))
        match (direction, kind):
            case ("out", "session_start" | "user_message" | "user_idle"):
                if kind == "session_start":
                    capabilities = fields.get("capabilities", ())
                    self._honours_cancel = _HONOURS_CANCEL in capabilities
                    self._takes_steps = _TAKES_STEPS in capabilities
                turn = stored_int(fields.get("turn_id")) or 1
                self._minted = max(self._minted, turn)
                text = str(fields.get("text", "")) if kind == "user_message" else ""
                level = stored_int(fields.get("level")) if kind == "user_idle" else 0
                return [TurnSent(turn, _MINTS.get(kind, TurnKind.IDLE), text, level)]
            case ("in", "speech_end" | "speech_cancel") if sid in self._units:
                return [BracketClosed(sid, cancelled=kind == "speech_cancel")]
            case ("in", "turn_step") if self._takes_steps:
                turn = stored_int(fields.get("turn_id"))
                try:
                    step = pb.TurnStep(**{k: v for k, v in fields.items() if k in _STEP_FIELDS})
                except (TypeError, ValueError):
                    return []  # a damaged row's step: nothing to record
                raw = step.SerializeToString()
                known = 0 < turn <= self._minted
                return [StepRecord(t_ms, turn, step.kind, raw, known_turn=known)]
            case (_, "error") if (side := read_direction(direction)) is not None:
                code, message = str(fields.get("code", "")), str(fields.get("message", ""))
                return [WireErrorRecord(t_ms, side, code, message, bool(fields.get("fatal")))]
        return []

    def _unit_records(
        self, direction: str, kind: str, fields: Mapping[str, Any]
    ) -> list[OldRecord]:
        """The records of the units a frame yields (module doc)."""
        sid = stored_int(fields.get("speech_id"))
        unit = self._units.get(sid)
        match (direction, kind):
            case ("in", "speech_start") if unit is None:
                turn = stored_int(fields.get("turn_id"))
                self._units[sid] = _Seen(turn)
                opened = UnitOpened(sid, turn, 0, 0)
                if turn <= self._watermark:
                    return [opened, *self._seal(sid, Fate.DEAD_ON_ARRIVAL)]
                return [opened]
            case ("in", "speech_chunk") if unit is not None:
                return self._chunk(sid, unit, str(fields.get("text", "")))
            case ("in", "speech_end") if unit is not None and unit.bracket is Bracket.OPEN:
                return self._close(sid, unit)
            case ("in", "end"):  # the brain hangs up: what it left open closes where it stops
                return [
                    record
                    for left, seen in self._in_play()
                    if seen.bracket is Bracket.OPEN
                    for record in self._close(left, seen)
                ]
            case ("in", "speech_cancel") if self._honours_cancel and unit is not None:
                # A second cancel, or one of a unit already finalized, cuts nothing.
                if not unit.sealed and unit.bracket is not Bracket.CANCELLED:
                    unit.bracket = Bracket.CANCELLED
                    return self._cut(Fate.CANCELLED)
            case ("out", "interruption"):
                through = stored_int(fields.get("through_turn"))
                self._watermark = max(self._watermark, through)
                return [WatermarkRaised(through), *self._cut(Fate.BARGED)]
            case ("out", "finalize") if unit is not None and not unit.sealed:
                return [*self._seal(sid, self._fate_at_finalize(sid, unit)), FinalizeSent(sid)]
            case ("out", "finalize"):
                return [FinalizeSent(sid)]
        return []

    def _chunk(self, sid: int, unit: _Seen, text: str) -> list[OldRecord]:
        if unit.bracket is Bracket.ENDED:
            return []  # a chunk after SpeechEnd is dropped
        if unit.bracket is Bracket.CANCELLED or unit.sealed:
            return [TextKept(sid, text)]
        if not text:
            return []
        unit.relayed.extend(text)
        return [SpeakText(sid, text)]

    def _fate_at_finalize(self, sid: int, unit: _Seen) -> Fate:
        """The fate of a unit no cause sealed, once its Finalize went out."""
        if sid in self._unspoken:
            return Fate.UNSPOKEN
        if unit.bracket is Bracket.ENDED and self._finalized.get(sid) == unit.relayed.text:
            return Fate.PLAYED
        return Fate.ABANDONED

    def _in_play(self) -> list[tuple[int, _Seen]]:
        """The units no cause has sealed."""
        return [(sid, u) for sid, u in self._units.items() if not u.sealed]

    def _close(self, sid: int, unit: _Seen) -> list[OldRecord]:
        """A bracket closed: a unit with nothing relayed is silent there and then."""
        unit.bracket = Bracket.ENDED
        return self._seal(sid, Fate.SILENT) if not unit.relayed.chars else []

    def _cut(self, fate: Fate) -> list[OldRecord]:
        return [record for sid, _ in self._in_play() for record in self._seal(sid, fate)]

    def _seal(self, sid: int, fate: Fate) -> list[OldRecord]:
        unit = self._units[sid]
        unit.sealed = True
        return [UnitSealed(sid, fate, self._finalized.get(sid, unit.relayed.heard))]


_STEP_FIELDS = frozenset(pb.TurnStep.DESCRIPTOR.fields_by_name)


def stored_int(value: object) -> int:
    """A stored field as an integer; 0 when a damaged row holds anything else."""
    if isinstance(value, int):
        return value
    try:
        return int(str(value))
    except ValueError:
        return 0
