"""A recorded session as a timeline, replayed to any moment (sans-I/O: the caller moves time).

The store keeps every frame's raw bytes and the runtime's events on one clock. A
:class:`Replayer` walks them in time order and rebuilds what the live app showed at each
moment: the units as the core recorded them (:mod:`sandbox.call.unit_fold`), with their
text as it was relayed, the words as the recorded playout reached them and each unit's fate
and heard text once the core sealed them, caller lines, notices, the state, the end. Moving
forward applies the moments in between; moving back starts over, which is cheap (a long call
is some thousands of moments).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sandbox.call.brain_frames import recorded_rtvi
from sandbox.call.effects import (
    AppFrameRefused,
    BrainError,
    BrainStalled,
    CallEnded,
    CallerIdle,
    CallerShown,
    CallState,
    ConfigApplied,
    ConfigRejected,
    DeadAir,
    DeadAirEnded,
    FrameDropped,
    Notice,
    ProtocolViolation,
    SpeakText,
    StateChanged,
    StepForUnknownTurn,
    ToApp,
)
from sandbox.call.ledger_records import WireErrorRecord
from sandbox.call.played import ClauseUnsaid, UnitUnspoken, WordPlayed
from sandbox.call.turn_records import BracketClosed, TurnKind, TurnSent
from sandbox.call.unit_fold import UnitFold
from sandbox.call.unit_records import TextKept, UnitOpened, UnitSealed, WatermarkRaised
from sandbox.call.units import Unit
from sandbox.record.plain_text import quoted, visible
from sandbox.record.record_text import finding_line, value_line
from sandbox.record.recorder import FrameRecord
from sandbox.record.reload_notice import ReloadNotice, notice_in
from sandbox.record.report import (
    CalledTheCaller,
    NameNotFromCaller,
    NameRefused,
    PromisedUnbooked,
    SpeechUnsaid,
    ValueHeard,
    ValueReadBack,
    finding_kind,
)
from sandbox.record.store import StoredEvent
from sandbox.record.stored_call import StoredCall
from sandbox.record.stored_events import DamagedEvent, ProcessStopped, SessionOpened, kind_of


@dataclass(frozen=True)
class Moment:
    """One thing that happened: a frame that crossed, or a runtime event."""

    t_ms: int
    frame: FrameRecord | None = None
    event: StoredEvent | None = None


@dataclass(frozen=True)
class Marker:
    """A point worth jumping to on the timeline: ``kind`` is turn, barge-in, cancel or error."""

    t_ms: int
    kind: str


@dataclass(frozen=True)
class RecordNote:
    """A finding of the call record, at the moment the call decided it."""

    words: str


Shown = (
    CallerShown
    | CallerIdle
    | Notice
    | ConfigApplied
    | CallEnded
    | ToApp
    | RecordNote
    | ReloadNotice
)
"""A line the conversation (or the app pane) gains at a moment."""


@dataclass
class View:
    """What the panes show at the replay's moment."""

    #: Conversation entries in order: a unit by its speech id, or a line.
    entries: list[int | Shown] = field(default_factory=list)
    frames: list[FrameRecord] = field(default_factory=list)
    state: str = CallState.CONNECTING
    settings: str = ""
    #: The units as the core recorded them, as of the replay's moment.
    fold: UnitFold = field(default_factory=UnitFold)

    @property
    def units(self) -> Mapping[int, Unit]:
        """Every unit opened as of the replay's moment, by its speech id."""
        return self.fold.units

    @property
    def watermark(self) -> int:
        """The barge-in watermark as of the replay's moment."""
        return self.fold.watermark


@dataclass
class Changes:
    """What one step forward changed, so panes redraw only that."""

    units: list[int] = field(default_factory=list)
    entries: list[int | Shown] = field(default_factory=list)
    frames: list[FrameRecord] = field(default_factory=list)
    #: Every moment passed, in order, for what follows the call besides the panes.
    moments: list[Moment] = field(default_factory=list)


class Replayer:
    """Rebuilds a session's :class:`View` at any time; see the module doc."""

    def __init__(self, frames: Sequence[FrameRecord], records: Sequence[StoredEvent]) -> None:
        """``frames``: the session's frames as decoded; ``records``: its events with the
        core's records in them (see :attr:`StoredCall.records`)."""
        moments = [Moment(f.t_ms, frame=f) for f in frames]
        moments += [Moment(e.t_ms, event=e) for e in records]
        # Stable: at one instant frames come before events, each in recorded order.
        self.moments = sorted(moments, key=lambda m: (m.t_ms, m.frame is None))
        self.duration_ms = max((m.t_ms for m in self.moments), default=0)
        self.markers = _markers(self.moments)
        self.view = View()
        self.t_ms = -1
        self._next = 0

    @classmethod
    def of(cls, call: StoredCall) -> Replayer:
        """The stored call's replay; one whose process died mid-call ends where its record
        does, saying so."""
        records = list(call.records)
        if call.crashed:
            records.append(StoredEvent(len(call.events), call.last_ms, kind_of(ProcessStopped), {}))
        return cls(call.frames, records)

    def seek(self, t_ms: int) -> Changes | None:
        """Move to ``t_ms``: the changes since the last moment shown, or None when the view was
        rebuilt from the start (a move back): redraw everything then."""
        rebuilt = t_ms < self.t_ms
        if rebuilt:
            self.view, self._next = View(), 0
        changes = Changes()
        while self._next < len(self.moments) and self.moments[self._next].t_ms <= t_ms:
            changes.moments.append(self.moments[self._next])
            _apply(self.view, self.moments[self._next], changes)
            self._next += 1
        self.t_ms = t_ms
        return None if rebuilt else changes

    def unit_start(self, speech_id: int) -> int | None:
        """When a unit opened, for jumping to it."""
        for moment in self.moments:
            opened = None if moment.event is None else moment.event.value
            if isinstance(opened, UnitOpened) and opened.speech_id == speech_id:
                return moment.t_ms
        return None


def _markers(moments: list[Moment]) -> list[Marker]:
    """The turns, barge-ins, take-backs and errors, from the core's records."""
    out = []
    for moment in moments:
        match None if moment.event is None else moment.event.value:
            case TurnSent(kind=TurnKind.CALLER):
                kind = "turn"
            case WatermarkRaised():
                kind = "barge-in"
            case BracketClosed(cancelled=True):
                kind = "cancel"
            case WireErrorRecord():
                kind = "error"
            case _:
                continue
        out.append(Marker(moment.t_ms, kind))
    return out


def _apply(view: View, moment: Moment, changes: Changes) -> None:
    if moment.frame is not None:
        view.frames.append(moment.frame)
        changes.frames.append(moment.frame)
        _frame(view, moment.frame, changes)
    elif moment.event is not None:
        try:
            _event(view, moment.event, changes)
        except ValueError as exc:
            # Settings naming a voice or language this build does not know: said, and skipped.
            damaged = DamagedEvent(moment.event.kind, str(exc))
            view.entries.append(RecordNote(damaged.words))
            changes.entries.append(RecordNote(damaged.words))


def _frame(view: View, frame: FrameRecord, changes: Changes) -> None:
    if recorded_rtvi(frame.type):
        notice = notice_in(frame.as_json())
        if notice is not None:  # the brain was reloaded: the turns after it ran the new code
            view.entries.append(notice)
            changes.entries.append(notice)


def _event(view: View, event: StoredEvent, changes: Changes) -> None:
    shown: Shown | None = None
    match event.value:
        case UnitOpened(speech_id=sid) as opened:
            if view.fold.apply(opened) is not None:
                view.entries.append(sid)
                changes.entries.append(sid)
                changes.units.append(sid)
        case WordPlayed() | SpeakText() | TextKept() | UnitSealed() | WatermarkRaised() as told:
            changed = view.fold.apply(told)
            if changed is not None:
                changes.units.append(changed)
        case UnitUnspoken():
            pass  # the core's record seals the unit with why
        case ClauseUnsaid(speech_id=sid, text=text, reason=reason):
            said, unsaid = quoted(text), finding_kind(SpeechUnsaid)
            shown = RecordNote(f"{unsaid}: unit {sid} could not say {said}: {visible(reason)}")
        case StateChanged(state=state):
            view.state = state
        case CallerShown() | CallerIdle() | CallEnded() | ToApp() as line:
            shown = line
        case ConfigApplied(settings=settings):
            view.settings = settings.describe()
            shown = event.value
        case SessionOpened(settings=settings):  # the settings the call started with
            view.settings = settings.describe()
        case (
            ProtocolViolation()
            | FrameDropped()
            | BrainError()
            | BrainStalled()
            | DeadAir()
            | DeadAirEnded()
            | StepForUnknownTurn()
            | ConfigRejected()
            | AppFrameRefused()
        ) as notice:
            shown = notice
        case ValueHeard(kind=kind, value=value, turn=turn):
            shown = RecordNote(f"heard a {kind}: {value} (turn {turn})")
        case ValueReadBack() as back:
            shown = RecordNote(value_line(back))
        case NameRefused() | NameNotFromCaller() | CalledTheCaller() | PromisedUnbooked() as found:
            shown = RecordNote(finding_line(found))
        case ProcessStopped():  # what was still in play was cut there by the crash
            changes.units += view.fold.crash()
            shown = RecordNote(
                "the call's process stopped here (killed or crashed): the recording ends, and "
                "what was still playing was cut by the crash"
            )
        case DamagedEvent() as damaged:  # said, and skipped
            shown = RecordNote(damaged.words)
    if shown is not None:
        view.entries.append(shown)
        changes.entries.append(shown)
