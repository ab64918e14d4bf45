"""The call's ledger: what a call leaves on record, appended by the core, read by the rest.

:class:`~sandbox.call.core.CallCore` appends to its :class:`Ledger` as the call runs and
hands everyone else a :class:`LedgerView`: the same facts, read-only. Each read returns a
fresh copy typed read-only (``Sequence``, ``Mapping``), so no reader can change the call's
record nor see it move under them. The report (``sandbox.record.report``) is built from it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from sandbox.call.caller_events import TranscriptMend, TurnClose
from sandbox.call.waterfall import in_order
from sandbox.wire import pb
from sandbox.wire.direction import Direction


@dataclass(frozen=True)
class WireErrorRecord:
    """One error either side reported, for the call's record."""

    t_ms: int
    dir: Direction  # "out": Voqalize told the brain; "in": the brain told Voqalize
    code: str
    message: str
    fatal: bool


@dataclass(frozen=True)
class StepRecord:
    """One TurnStep, recorded beside its turn. Counts left out stay absent, not zero."""

    t_ms: int
    turn_id: int
    kind: str
    #: The step's own bytes: a call keeps every step to its end, and these take ~0.1 KB
    #: where its fields as a dict take ~1.1 KB.
    raw: bytes
    known_turn: bool = True  # False: it named a turn this session never minted

    @property
    def step(self) -> dict[str, Any]:
        """The step's fields as plain values (see :func:`step_fields`)."""
        return step_fields(pb.TurnStep.FromString(self.raw))


@dataclass(frozen=True)
class StallRecord:
    """The user was told the brain had not answered ``turn_id`` after ``waited_ms``."""

    t_ms: int
    turn_id: int
    waited_ms: int


@dataclass(frozen=True)
class DeadAirRecord:
    """Dead air mid-unit: unit ``speech_id`` of turn ``turn_id`` was open and nothing
    played, nor came from the brain for it, from ``t_ms`` for ``silent_ms``."""

    t_ms: int
    turn_id: int
    speech_id: int
    silent_ms: int


@dataclass(frozen=True)
class BackchannelRecord:
    """A backchannel over the bot ("uh huh"): never a turn, but part of the conversation.
    ``resumed``: the bot paused for it, then went on."""

    t_ms: int
    text: str
    resumed: bool = False


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

    # ------------------------------------------------------------- appending

    def add_step(self, step: StepRecord) -> None:
        """A TurnStep crossed."""
        self._steps.append(step)
        bucket = step.turn_id if step.known_turn else 0
        self._steps_by_turn[bucket] = self._steps_by_turn.get(bucket, 0) + 1

    def steps_of(self, turn_id: int) -> int:
        """How many TurnSteps crossed for turn ``turn_id`` (0: for turns never minted)."""
        return self._steps_by_turn.get(turn_id, 0)

    def add_error(self, error: WireErrorRecord) -> None:
        """An error was told either way."""
        self._errors.append(error)

    def add_caller_line(
        self, turn_id: int, text: str, closed_by: TurnClose, mend: TranscriptMend | None = None
    ) -> None:
        """The caller committed ``text`` as turn ``turn_id``, closed as ``closed_by``, its
        transcript mended as ``mend`` (None: as Whisper wrote it)."""
        self._caller_lines.append(text)
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


def step_fields(step: pb.TurnStep) -> dict[str, Any]:
    """A TurnStep as plain values: numbers stay numbers, a zero start is kept (it means the
    start), and a field with presence that was not sent stays absent, as do counts not
    reported ("absent is not zero")."""
    out: dict[str, Any] = {}
    for desc in step.DESCRIPTOR.fields:
        if desc.has_presence and not step.HasField(desc.name):
            continue
        value = getattr(step, desc.name)
        out[desc.name] = dict(value) if desc.message_type is not None else value
    return out
