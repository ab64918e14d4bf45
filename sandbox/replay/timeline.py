"""A recorded session as a timeline, replayed to any moment (sans-I/O: the caller moves time).

The store keeps every frame's raw bytes and the runtime's events on one clock. A
:class:`Replayer` walks them in time order and rebuilds what the live app showed at each
moment: the units with their text as it was relayed and the words as the recorded playout
reached them, each unit's fate once its Finalize went out, caller lines, notices, the
state, the end. Moving forward applies the moments in between; moving back starts over,
which is cheap (a long call is some thousands of moments).
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    StateChanged,
    StepForUnknownTurn,
    ToApp,
)
from sandbox.call.heard import HeardCursor
from sandbox.call.played import ClauseUnsaid, UnitUnspoken, WordPlayed
from sandbox.call.units import Bracket, Fate, Unit
from sandbox.record.export import frame_record
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
from sandbox.record.store import StoredEvent, StoredFrame
from sandbox.record.stored_events import DamagedEvent, ProcessStopped, SessionOpened
from sandbox.record.unit_fates import FateReader


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

    units: dict[int, Unit] = field(default_factory=dict)
    #: Conversation entries in order: a unit by its speech id, or a line.
    entries: list[int | Shown] = field(default_factory=list)
    frames: list[FrameRecord] = field(default_factory=list)
    state: str = CallState.CONNECTING
    settings: str = ""
    unspoken: dict[int, str] = field(default_factory=dict)  # units playout could not speak
    #: Each unit's fate as the core sealed it, read off the same frames.
    fates: FateReader = field(default_factory=FateReader)

    @property
    def watermark(self) -> int:
        """The barge-in watermark as of the replay's moment."""
        return self.fates.watermark


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

    def __init__(self, frames: list[StoredFrame], events: list[StoredEvent]) -> None:
        moments = [Moment(f.t_ms, frame=frame_record(f)) for f in frames]
        moments += [Moment(e.t_ms, event=e) for e in events]
        # Stable: at one instant frames come before events, each in recorded order.
        self.moments = sorted(moments, key=lambda m: (m.t_ms, m.frame is None))
        self.duration_ms = max((m.t_ms for m in self.moments), default=0)
        self.markers = _markers(self.moments)
        self.view = View()
        self.t_ms = -1
        self._next = 0

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
            frame = moment.frame
            if frame is None or frame.type != "speech_start":
                continue
            if frame.fields.get("speech_id") == speech_id:
                return moment.t_ms
        return None


def _markers(moments: list[Moment]) -> list[Marker]:
    out = []
    for moment in moments:
        frame = moment.frame
        if frame is None:
            continue
        kind = {
            ("out", "user_message"): "turn",
            ("out", "interruption"): "barge-in",
            ("in", "speech_cancel"): "cancel",
            ("in", "error"): "error",
            ("out", "error"): "error",
        }.get((frame.dir, frame.type))
        if kind is not None:
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
    view.fates.frame(frame)
    if frame.type == "rtvi":
        notice = notice_in(frame.as_json())
        if notice is not None:  # the brain was reloaded: the turns after it ran the new code
            view.entries.append(notice)
            changes.entries.append(notice)
        return
    f, sid = frame.fields, int(frame.fields.get("speech_id", 0))
    unit = view.units.get(sid)
    if frame.dir == "in" and frame.type == "speech_start" and unit is None:
        unit = Unit(sid, int(f.get("turn_id", 0)), 0, 0)
        view.units[sid] = unit
        view.entries.append(sid)
        changes.entries.append(sid)
    elif unit is None:
        return
    elif frame.dir == "in" and frame.type == "speech_chunk":
        if unit.fate is None and unit.bracket is Bracket.OPEN:
            unit.cursor.extend(str(f.get("text", "")))
        else:
            unit.discarded.append(str(f.get("text", "")))
    elif frame.dir == "in" and frame.type == "speech_end":
        unit.bracket = Bracket.ENDED if unit.bracket is Bracket.OPEN else unit.bracket
    elif frame.dir == "out" and frame.type == "finalize":
        _finalized(view, unit, str(f.get("heard_text", "")))
    changes.units.append(sid)


def _finalized(view: View, unit: Unit, heard: str) -> None:
    """A unit's Finalize went out: its fate is the one the core sealed, and its heard text
    the Finalize's, the record's word (a word played in the same millisecond as the cut may
    sort after it): the cursor is brought to it."""
    unit.finalized = True
    if heard != unit.heard:
        cursor = HeardCursor()
        cursor.extend(unit.relayed)
        for word in heard.split():
            cursor.played(word)
        unit.cursor = cursor
    unit.unspoken = view.unspoken.get(unit.speech_id, "")
    unit.fate = view.fates.fate(unit.speech_id)
    if unit.fate is Fate.PLAYED:
        unit.cursor.played_all()


def _event(view: View, event: StoredEvent, changes: Changes) -> None:
    shown: Shown | None = None
    match event.value:
        case WordPlayed(speech_id=sid, word=word):
            unit = view.units.get(sid)
            if unit is not None and unit.fate is None:
                unit.cursor.played(word)
                changes.units.append(unit.speech_id)
        case (
            UnitUnspoken(speech_id=sid, reason=reason) | ClauseUnsaid(speech_id=sid, reason=reason)
        ):
            # unit_unspoken comes at its Finalize's instant, so after that frame; a clause
            # left unsaid comes while the unit still plays, and its Finalize reads it from
            # the view.
            view.unspoken[sid] = reason
            view.fates.unspoken(sid)
            unit = view.units.get(sid)
            if unit is not None and unit.finalized:
                unit.fate, unit.unspoken = view.fates.fate(sid), reason
                changes.units.append(sid)
            if isinstance(event.value, ClauseUnsaid):
                said = quoted(event.value.text)
                unsaid = finding_kind(SpeechUnsaid)
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
            for unit in view.units.values():
                if unit.fate is None:
                    unit.fate = Fate.CRASHED
                    changes.units.append(unit.speech_id)
            shown = RecordNote(
                "the call's process stopped here (killed or crashed): the recording ends, and "
                "what was still playing was cut by the crash"
            )
        case DamagedEvent() as damaged:  # said, and skipped
            shown = RecordNote(damaged.words)
    if shown is not None:
        view.entries.append(shown)
        changes.entries.append(shown)
