"""A call's turns, read from the core's records: the one reader of when each turn went out,
its caller's text, when its answer's first chunk came, and the TurnSteps and errors taken.

:class:`TurnFold` is handed a call's records with the moment of each, in order: stored
events (the rebuilt report, the replay, the page, the re-drive's diff) or, live, the core's
effects as they come (the load's latencies, on the wall clock). It decides nothing the core
did not: a turn's first chunk is the first text the core relayed for a unit of that turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from sandbox.call.effects import SpeakText
from sandbox.call.ledger import StepRecord, WireErrorRecord
from sandbox.call.turn_records import TurnKind, TurnSent
from sandbox.call.unit_records import UnitOpened


class TurnFold:
    """A call's turns as of the last record folded; see the module doc."""

    def __init__(self) -> None:
        self._sent: dict[int, tuple[int, TurnSent]] = {}
        self._unit_turn: dict[int, int] = {}
        self._opened_at: dict[int, int] = {}
        self._first_chunk: dict[int, int] = {}
        self._steps: list[StepRecord] = []
        self._errors: list[WireErrorRecord] = []

    def apply(self, t_ms: int, value: object) -> int | None:
        """Fold one record, which happened at ``t_ms``: the turn whose answer's first chunk
        it is, or None."""
        match value:
            case TurnSent(turn_id=turn) as sent:
                self._sent.setdefault(turn, (t_ms, sent))
            case UnitOpened(speech_id=sid, turn_id=turn):
                self._unit_turn.setdefault(sid, turn)
                self._opened_at.setdefault(sid, t_ms)
            case SpeakText(speech_id=sid):
                answered = self._unit_turn.get(sid)
                if answered is not None and answered not in self._first_chunk:
                    self._first_chunk[answered] = t_ms
                    return answered
            case StepRecord() as step:
                self._steps.append(step)
            case WireErrorRecord() as error:
                self._errors.append(error)
        return None

    @property
    def sent(self) -> Sequence[TurnSent]:
        """Every turn the core sent, in the order it sent them."""
        return [sent for _, sent in self._sent.values()]

    @property
    def caller_lines(self) -> tuple[str, ...]:
        """Each caller turn's text as it went to the brain, in order."""
        return tuple(s.text for s in self.sent if s.kind is TurnKind.CALLER)

    def sent_at(self, turn_id: int) -> int | None:
        """When turn ``turn_id`` went out, or None (never sent)."""
        found = self._sent.get(turn_id)
        return None if found is None else found[0]

    @property
    def opened_at(self) -> Mapping[int, int]:
        """When each unit opened, by its speech id."""
        return MappingProxyType(self._opened_at)

    def first_chunk_ms(self, turn_id: int) -> int | None:
        """From turn ``turn_id`` going out to its answer's first chunk; None without both."""
        asked, answered = self.sent_at(turn_id), self._first_chunk.get(turn_id)
        return None if asked is None or answered is None else answered - asked

    @property
    def steps(self) -> Sequence[StepRecord]:
        """Every TurnStep the core took, in order."""
        return list(self._steps)

    @property
    def errors(self) -> Sequence[WireErrorRecord]:
        """Every error the core recorded either way, in order."""
        return list(self._errors)
