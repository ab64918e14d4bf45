"""A report's ``conversation``: the core's records of who said what and when, in its order.

:class:`ConversationLog` is handed what the core decided with the moment of each, in order:
live, every effect the host carries out (the recorder's report); stored, the session's
events with the core's records in them (the rebuilt report,
:func:`~sandbox.record.unit_log.with_unit_records`). It keeps each turn the core sent, each
unit it opened, each turn's first chunk (as :class:`~sandbox.call.ledger.Ledger` says
it), each Interruption and each reload notice of the brain the core relayed to the app, as
the report's typed records (:data:`~sandbox.record.report.ConversationRecord`). It keeps
nothing of a chunk but the first of each turn, so a brain's flood does not grow it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sandbox.call.effects import SpeakText, ToApp
from sandbox.call.ledger import Ledger
from sandbox.call.turn_records import TurnKind, TurnSent
from sandbox.call.unit_records import UnitOpened, WatermarkRaised
from sandbox.record.reload_notice import ReloadNotice, notice_of
from sandbox.record.report import (
    CallerSaid,
    ConversationRecord,
    FirstChunk,
    GreetingSent,
    IdleSent,
    InterruptionSent,
    ReloadSaid,
    UnitStarted,
)


class ConversationLog:
    """A call's conversation as of the last value folded; see the module doc."""

    def __init__(self) -> None:
        self._said: list[ConversationRecord] = []
        # Told only of units opened and text relayed: all it needs to say a first chunk.
        self._answers = Ledger()

    @property
    def records(self) -> tuple[ConversationRecord, ...]:
        """Every record so far, in the order the core decided them."""
        return tuple(self._said)

    def apply(self, t_ms: int, value: object) -> None:
        """Fold one of the core's effects or a stored event's value, which happened at
        ``t_ms`` (a value it does not read is passed over). A :class:`ReloadNotice` is
        taken as it is: an older build's report has it only in an RTVI frame."""
        said: ConversationRecord | None = None
        match value:
            case TurnSent(turn_id=turn, kind=TurnKind.GREETING):
                said = GreetingSent(t_ms=t_ms, turn_id=turn)
            case TurnSent(turn_id=turn, kind=TurnKind.CALLER, text=text):
                said = CallerSaid(t_ms=t_ms, turn_id=turn, text=text)
            case TurnSent(turn_id=turn, kind=TurnKind.IDLE, level=level):
                said = IdleSent(t_ms=t_ms, turn_id=turn, level=level)
            case UnitOpened(speech_id=sid, turn_id=turn):
                self._answers.apply(t_ms, value)
                said = UnitStarted(t_ms=t_ms, speech_id=sid, turn_id=turn)
            case SpeakText():
                answered = self._answers.apply(t_ms, value)
                if answered is not None:
                    said = FirstChunk(t_ms=t_ms, turn_id=answered)
            case WatermarkRaised(through_turn=through):
                said = InterruptionSent(t_ms=t_ms, through_turn=through)
            case ToApp(type=rtvi_type, data=data, recorded=True):
                notice = notice_of(rtvi_type, data)
                if notice is not None:
                    said = _reload(t_ms, notice)
            case ReloadNotice():
                said = _reload(t_ms, value)
        if said is not None:
            self._said.append(said)


def _reload(t_ms: int, notice: ReloadNotice) -> ReloadSaid:
    return ReloadSaid(t_ms=t_ms, file=notice.file, serving=notice.serving, moved=notice.moved)


def heard_history(
    conversation: Iterable[ConversationRecord], heard: Mapping[int, str]
) -> list[tuple[str, str]]:
    """What a heard-truth brain holds: ``("user", text)`` for each caller turn and
    ``("assistant", heard)`` for each unit heard at all (``heard``: each unit's heard text by
    speech id), in the order the core recorded them."""
    left = dict(heard)
    out: list[tuple[str, str]] = []
    for said in conversation:
        match said:
            case CallerSaid(text=text):
                out.append(("user", text))
            case UnitStarted(speech_id=sid) if left.get(sid):
                out.append(("assistant", left.pop(sid)))
    return out
