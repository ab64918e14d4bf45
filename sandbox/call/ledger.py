"""The call's ledger: what a call leaves on record, the one fold of the core's records of
its turns and the brain's wire.

:class:`~sandbox.call.core.CallCore` folds each record it makes into its :class:`Ledger`
as the call runs (:meth:`Ledger.apply`: each turn it sent, each unit it opened and the text
it relayed, each TurnStep and error) and hands everyone else a :class:`LedgerView`: the same
facts, read-only. A stored call's readers (the page, the conversation, the old-session
report) and the load's latencies fold the same records, stored or live, into a ledger of
their own through the same :meth:`Ledger.apply`, so every reader of a call's turns reads one
fold. Each read returns a fresh copy typed read-only (``Sequence``, ``Mapping``), so no
reader can change the call's record nor see it move under them. The report
(``sandbox.record.call_report``) is built from it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol

from sandbox.call.caller_events import TranscriptMend, TurnClose
from sandbox.call.effects import SpeakText
from sandbox.call.ledger_records import (
    BackchannelRecord,
    DeadAirRecord,
    StallRecord,
    StepRecord,
    WireErrorRecord,
)
from sandbox.call.turn_records import TurnKind, TurnSent
from sandbox.call.unit_records import UnitOpened
from sandbox.call.waterfall import in_order


class LedgerView(Protocol):
    """The call's record as everyone outside the core reads it: snapshots, never handles."""

    @property
    def steps(self) -> Sequence[StepRecord]:
        """Every TurnStep the brain sent, in order."""

    @property
    def errors(self) -> Sequence[WireErrorRecord]:
        """Every error recorded either way, in order (at most ``MAX_ERRORS``)."""

    @property
    def caller_lines(self) -> Sequence[str]:
        """Each committed caller turn's text, in order."""

    @property
    def caller_closes(self) -> Mapping[int, TurnClose]:
        """How each caller turn (by its turn id) was closed: "typed", "confident", ..."""

    @property
    def caller_mends(self) -> Mapping[int, TranscriptMend]:
        """How each caller turn whose transcript was mended (by its turn id) was: "doubled",
        "looped", ... (turns as Whisper wrote them are not in it)."""

    @property
    def backchannels(self) -> Sequence[BackchannelRecord]:
        """Every backchannel heard over the bot."""

    @property
    def stalls(self) -> Sequence[StallRecord]:
        """Every time the user was told the brain had not answered."""

    @property
    def dead_air(self) -> Sequence[DeadAirRecord]:
        """Every stretch of dead air inside an open unit, once it ended."""

    @property
    def timelines(self) -> Mapping[int, Mapping[str, int]]:
        """Each caller turn's latency waterfall by its turn id: stage -> ms on the call's
        clock, in stage order (see :mod:`sandbox.call.waterfall`)."""

    @property
    def alignment_skips(self) -> int:
        """Words the playout reported that did not match the unit's text."""

    @property
    def errors_uncounted(self) -> int:
        """Errors past ``MAX_ERRORS``: dropped, not recorded."""


@dataclass
class Ledger:
    """The append side, which only the core holds. Reads are copies (see the module doc):
    a test comparing ``ledger.stalls == []`` and a reader keeping one both stay correct."""

    _sent: dict[int, tuple[int, TurnSent]] = field(default_factory=dict)
    _unit_turn: dict[int, int] = field(default_factory=dict)
    _opened_at: dict[int, int] = field(default_factory=dict)
    _first_chunk: dict[int, int] = field(default_factory=dict)
    _steps: list[StepRecord] = field(default_factory=list)
    _steps_by_turn: dict[int, int] = field(default_factory=dict)
    _errors: list[WireErrorRecord] = field(default_factory=list)
    _caller_lines: list[str] = field(default_factory=list)
    _caller_closes: dict[int, TurnClose] = field(default_factory=dict)
    _caller_mends: dict[int, TranscriptMend] = field(default_factory=dict)
    _backchannels: list[BackchannelRecord] = field(default_factory=list)
    _stalls: list[StallRecord] = field(default_factory=list)
    _dead_air: list[DeadAirRecord] = field(default_factory=list)
    _timelines: dict[int, dict[str, int]] = field(default_factory=dict)
    _alignment_skips: int = 0
    _errors_uncounted: int = 0

    # --------------------------------------------------------------- folding

    def apply(self, t_ms: int, value: object) -> int | None:
        """Fold one record, which happened at ``t_ms``: the turn whose answer's first chunk
        it is, or None. The core folds each record here as it makes it; a reader folds a
        stored call's records, or a live call's effects, in their order (anything else is
        passed over). A caller turn's close is the core's alone (:meth:`close_turn`)."""
        match value:
            case TurnSent(turn_id=turn, kind=kind, text=text) as sent:
                if turn not in self._sent:
                    self._sent[turn] = (t_ms, sent)
                    if kind is TurnKind.CALLER:
                        self._caller_lines.append(text)
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
                bucket = step.turn_id if step.known_turn else 0
                self._steps_by_turn[bucket] = self._steps_by_turn.get(bucket, 0) + 1
            case WireErrorRecord() as error:
                self._errors.append(error)
        return None

    # ------------------------------------------------------------- appending

    def steps_of(self, turn_id: int) -> int:
        """How many TurnSteps crossed for turn ``turn_id`` (0: for turns never minted)."""
        return self._steps_by_turn.get(turn_id, 0)

    def close_turn(
        self, turn_id: int, closed_by: TurnClose, mend: TranscriptMend | None = None
    ) -> None:
        """Caller turn ``turn_id`` was closed as ``closed_by``, its transcript mended as
        ``mend`` (None: as Whisper wrote it); its text comes with its :class:`TurnSent`."""
        self._caller_closes[turn_id] = closed_by
        if mend is not None:
            self._caller_mends[turn_id] = mend

    def add_backchannel(self, backchannel: BackchannelRecord) -> None:
        """A backchannel was heard over the bot."""
        self._backchannels.append(backchannel)

    def add_stall(self, stall: StallRecord) -> None:
        """The user was told the brain is slow."""
        self._stalls.append(stall)

    def add_dead_air(self, gap: DeadAirRecord) -> None:
        """Dead air inside an open unit ended."""
        self._dead_air.append(gap)

    def open_timeline(self, turn_id: int, marks: Mapping[str, int]) -> None:
        """Caller turn ``turn_id`` was committed: its waterfall starts with ``marks``."""
        self._timelines[turn_id] = dict(marks)

    def mark(self, turn_id: int, stage: str, t_ms: int) -> None:
        """``stage`` of caller turn ``turn_id`` happened at ``t_ms``; only its first time
        counts, and a turn with no timeline (the greeting, an idle turn) keeps none."""
        timeline = self._timelines.get(turn_id)
        if timeline is not None:
            timeline.setdefault(stage, t_ms)

    def skip_alignment(self) -> None:
        """A played word did not match its unit's text."""
        self._alignment_skips += 1

    def leave_error_uncounted(self) -> None:
        """An error past the limit was dropped."""
        self._errors_uncounted += 1

    # --------------------------------------------------------------- reading

    @property
    def sent(self) -> Sequence[TurnSent]:
        """Every turn sent, in the order they went out."""
        return [sent for _, sent in self._sent.values()]

    def sent_at(self, turn_id: int) -> int | None:
        """When turn ``turn_id`` went out, or None (never sent)."""
        found = self._sent.get(turn_id)
        return None if found is None else found[0]

    @property
    def opened_at(self) -> Mapping[int, int]:
        """When each unit opened, by its speech id."""
        return MappingProxyType(dict(self._opened_at))

    def first_chunk_ms(self, turn_id: int) -> int | None:
        """From turn ``turn_id`` going out to its answer's first chunk; None without both."""
        asked, answered = self.sent_at(turn_id), self._first_chunk.get(turn_id)
        return None if asked is None or answered is None else answered - asked

    @property
    def steps(self) -> Sequence[StepRecord]:
        """See :class:`LedgerView`."""
        return list(self._steps)

    @property
    def errors(self) -> Sequence[WireErrorRecord]:
        """See :class:`LedgerView`."""
        return list(self._errors)

    @property
    def error_count(self) -> int:
        """How many errors are recorded (the core's limit reads it on every error)."""
        return len(self._errors)

    @property
    def caller_lines(self) -> Sequence[str]:
        """See :class:`LedgerView`."""
        return list(self._caller_lines)

    @property
    def caller_closes(self) -> Mapping[int, TurnClose]:
        """See :class:`LedgerView`."""
        return MappingProxyType(dict(self._caller_closes))

    @property
    def caller_mends(self) -> Mapping[int, TranscriptMend]:
        """See :class:`LedgerView`."""
        return MappingProxyType(dict(self._caller_mends))

    @property
    def backchannels(self) -> Sequence[BackchannelRecord]:
        """See :class:`LedgerView`."""
        return list(self._backchannels)

    @property
    def stalls(self) -> Sequence[StallRecord]:
        """See :class:`LedgerView`."""
        return list(self._stalls)

    @property
    def dead_air(self) -> Sequence[DeadAirRecord]:
        """See :class:`LedgerView`."""
        return list(self._dead_air)

    @property
    def timelines(self) -> Mapping[int, Mapping[str, int]]:
        """See :class:`LedgerView`."""
        return MappingProxyType({t: in_order(marks) for t, marks in self._timelines.items()})

    def latest_timeline(self) -> tuple[int, Mapping[str, int]] | None:
        """The latest caller turn and its timeline, stages in order, as a read-only copy (a
        snapshot needs only that one, not a copy of every turn's); None before any."""
        if not self._timelines:
            return None
        turn_id = max(self._timelines)
        return turn_id, MappingProxyType(in_order(self._timelines[turn_id]))

    @property
    def alignment_skips(self) -> int:
        """See :class:`LedgerView`."""
        return self._alignment_skips

    @property
    def errors_uncounted(self) -> int:
        """See :class:`LedgerView`."""
        return self._errors_uncounted
