"""CallCore: everything Voqalize does on the wire, as a sans-I/O state machine.

The host feeds it inputs (:mod:`sandbox.call.inputs`: an envelope from the brain, a
committed caller turn, a barge-in, playout progress, app frames, the time), one at a time
through :meth:`CallCore.handle`, each with the current time in milliseconds, and carries out
the effects it returns. The core owns every rule of the
wire: turns and the floor, brackets, the watermark, exactly one Finalize per bracket in
the order the units opened, SpeechCancel, the control leg, idle, the RTVI whitelist,
TurnStep, errors and the end of the call. It has no clock, no socket and no audio.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import assert_never

from sandbox.call import outcome as outcomes
from sandbox.call.breaches import BrokenRule, WireBreach
from sandbox.call.caller_events import (
    Backchannel,
    BargeIn,
    BotResumes,
    CallerSpeaking,
    DroppedEmpty,
    OverBot,
    TranscriptMend,
    TurnClose,
    TurnCommitted,
)
from sandbox.call.effects import (
    AppFrameRefused,
    BrainError,
    BrainStalled,
    CallEnded,
    CallerIdle,
    CallerShown,
    CallState,
    CloseUnit,
    ConfigApplied,
    ConfigRejected,
    CutPlayout,
    CutReason,
    DeadAir,
    DeadAirEnded,
    Effect,
    EndedBy,
    FrameDropped,
    ListenWith,
    OpenUnit,
    PausePlayout,
    ProtocolViolation,
    ResumePlayout,
    SendFrame,
    SpeakText,
    StateChanged,
    StepForUnknownTurn,
    ToApp,
    UnitChanged,
)
from sandbox.call.idle import IdleTimer
from sandbox.call.inputs import (
    AppFrame,
    BrainClosed,
    BrainMalformed,
    Configure,
    CoreInput,
    FromBrain,
    HangUp,
    LineGiven,
    NotPlaced,
    Start,
    Tick,
    UnitCounted,
)
from sandbox.call.ledger import Ledger, LedgerView
from sandbox.call.ledger_records import (
    BackchannelRecord,
    DeadAirRecord,
    StallRecord,
    StepRecord,
    WireErrorRecord,
)
from sandbox.call.lifecycle import (
    OVER,
    Floor,
    FloorEvent,
    Hold,
    HoldEvent,
    Machine,
    Opening,
    OpeningEvent,
    Phase,
    PhaseEvent,
    brain_opening,
    call_phase,
    caller_floor,
    playout_hold,
)
from sandbox.call.played import (
    AudioMark,
    ClauseUnsaid,
    UnitPlayed,
    UnitUnspoken,
    WordPlayed,
)
from sandbox.call.rtvi import app_frame_problem, brain_frame_problem, rtvi_name
from sandbox.call.settings import Capabilities, Settings, merged, validate
from sandbox.call.snapshot import CallSnapshot
from sandbox.call.surplus import Surplus, SurplusFrame
from sandbox.call.turn_records import (
    ArmSkipped,
    BracketClosed,
    FinalizeSent,
    RequestAnswered,
    TurnKind,
    TurnSent,
)
from sandbox.call.unit_records import TextKept, UnitOpened, UnitSealed, WatermarkRaised
from sandbox.call.unit_sample import MAX_UNITS_KEPT, UnitSample
from sandbox.call.units import Bracket, Fate, Unit, UnitBook, WireRuleBroken
from sandbox.call.waterfall import (
    FIRST_CHUNK,
    FIRST_SAMPLE,
    PLAYOUT_STAGES,
    USER_MESSAGE,
    HeardTiming,
    on_the_line,
)
from sandbox.wire import WIRE_VERSION, pb
from sandbox.wire.catalog import ISO_BY_LANGUAGE, RTVI_TYPE_BY_NAME, VOQALIZE_ARMS
from sandbox.wire.codec import envelope, unknown_arms
from sandbox.wire.direction import Direction

DEFAULT_CAPABILITIES = (pb.CAPABILITY_SPEECH_CANCEL, pb.CAPABILITY_TURN_STEPS)
#: How long a minted turn may go unanswered before the user is told the brain is slow.
DEFAULT_STALL_MS = 10_000
#: The greeting is a static line ("nothing waits on a model there"), and optional: after
#: this long without one the call simply listens.
GREETING_WAIT_MS = 2_000
#: A brain that has sent no frame at all this long after SessionStart is reported stalled
#: on turn 1 ("Silence reads as failure": the wire's first principle); the call goes on.
SILENT_BRAIN_MS = 4_000
#: Dead air inside an open unit this long is shown and recorded (see ``CallCore.dead_air_at``).
#: Only shown: the wire gives the runtime no rule that closes a unit ("Every SpeechStart is
#: closed by a SpeechEnd or a SpeechCancel", both the brain's), and awaiting a tool between
#: two chunks is how a brain says a filler, works, then answers. A unit stays open until its
#: SpeechEnd, a SpeechCancel, a barge-in or the end of the call, however long it is silent.
DEAD_AIR_MS = 1_000
#: The most errors one call records, either way. Past it a violation is still dropped but
#: no Error goes back, and a brain's non-fatal Error is not shown; both are counted
#: (``CallCore.ledger.errors_uncounted``), so a brain repeating one mistake thousands of times a
#: second cannot grow the call, its record or the screen without bound.
MAX_ERRORS = 200
#: A turn's TurnSteps the call keeps (a tool-heavy turn sends a few dozen); later ones are
#: surplus, counted (:data:`~sandbox.call.surplus.Surplus.STEP_PAST_CAP`).
MAX_TURN_STEPS = 500
#: A call's RTVI frames from the brain the record keeps; later ones still cross to the app,
#: and the record keeps a sample and counts the rest (``Surplus.RTVI_PAST_CAP``).
MAX_RTVI_KEPT = 1000
#: A call's Requests the record keeps, with their Responses; each later one is still
#: answered as 001 requires, and the record keeps a sample and counts the rest
#: (``Surplus.REQUEST_PAST_CAP``): 200,000 Requests kept whole made a 59 MB report.
MAX_REQUESTS_KEPT = 1000
#: The most of a brain's Error message the call keeps (its record, the screen, the end's
#: detail), the rest counted in words: the wire bounds it only by the message size, and
#: thirty 15 MB messages kept whole made a 740 MB call and a 90 MB report.
MAX_ERROR_CHARS = 4096


@dataclass
class _Pending:
    """Why the floor is busy while no unit is open: a turn the brain still owes an answer."""

    turn_id: int
    since_ms: int
    limit_ms: int
    warned: bool = False
    #: An idle turn. Its nudge is optional ("yield a nudge, or nothing"): the wait keeps the
    #: turn live (a caller who speaks kills it) and gives the brain time, but owes nothing:
    #: it holds no idle wait off, shows no "thinking" and is never reported stalled.
    idle: bool = False

    @property
    def due_ms(self) -> int:
        """When the wait lapses."""
        return self.since_ms + self.limit_ms


@dataclass
class CallCore:
    """One session of the mini Voqalize: fed inputs through :meth:`handle`, which returns the
    effects to carry out; the rest of its surface only reads."""

    session_id: str
    caps: Capabilities
    init: str = "{}"
    settings: Settings = field(default_factory=Settings)
    capabilities: tuple[int, ...] = DEFAULT_CAPABILITIES
    stall_ms: int = DEFAULT_STALL_MS
    #: The phone line's delay each way (ms; 0: no line): the waterfall's network stages.
    line_ms: int = 0

    turn: int = 0
    watermark: int = 0
    #: The units, in the order they opened: read through ``units``, ``unit`` and ``in_play``.
    _book: UnitBook = field(default_factory=UnitBook)
    #: How the call ended, once it has: read through ``ended``, set with the phase's end.
    _ended: CallEnded | None = None
    #: The call's record, appended here only; read through ``ledger``.
    _ledger: Ledger = field(default_factory=Ledger)

    #: The call's lifecycle, one machine per part (see :mod:`sandbox.call.lifecycle`).
    _phase: Machine[Phase, PhaseEvent] = field(default_factory=call_phase)
    _opening: Machine[Opening, OpeningEvent] = field(default_factory=brain_opening)
    _floor: Machine[Floor, FloorEvent] = field(default_factory=caller_floor)
    _hold: Machine[Hold, HoldEvent] = field(default_factory=playout_hold)

    _pending: _Pending | None = None
    _stt_language_pending: int | None = None
    _rtvi: int = 0  # RTVI frames from the brain handled
    _requests: int = 0  # Requests from the brain handled
    _starts: int = 0  # SpeechStarts from the brain handled
    #: The units opened past MAX_UNITS_KEPT, by id: their frames are the record's surplus.
    _unsampled: set[int] = field(default_factory=set)
    #: Which units the record keeps (see :mod:`sandbox.call.unit_sample`).
    _sample: UnitSample = field(default_factory=UnitSample)
    #: When SessionStart went out, on the host's clock: the core's times are the host's, and
    #: the session's own waits count from here (the host may start it at any time).
    _started_ms: int | None = None
    #: When the playout last released a word or finished a unit: dead air starts no sooner.
    _last_sound_ms: int = 0
    #: The dead air being shown, if any, and since when (see ``dead_air_at``).
    _gap: DeadAir | None = None
    _gap_since: int = 0
    _state: CallState | None = None
    _idle: IdleTimer = field(init=False)
    #: The brain closed its socket after its End: the close the End began. What it relayed
    #: still plays out and is finalized, but nothing more can be sent to it.
    _brain_gone: bool = False

    def __post_init__(self) -> None:
        self._idle = IdleTimer(self.settings.idle_ms)

    # ------------------------------------------------------------------ input

    def handle(self, fed: CoreInput, now: int) -> list[Effect]:
        """Take one input at ``now`` (ms, on the host's clock) and return the effects to carry
        out, in order. The one way anything enters the core: the host, the tests' rig, the
        fuzz target and a stored call fed again all come through here, and the match is
        exhaustive, so a new kind of input that is not handled fails the type check."""
        out = self._take(fed, now)
        if self._brain_gone:  # its socket is closed: no frame can reach it any more
            return [e for e in out if not isinstance(e, SendFrame)]
        return out

    def _take(self, fed: CoreInput, now: int) -> list[Effect]:
        match fed:
            case FromBrain(env=env):
                return self._from_brain(env, now)
            case WordPlayed(speech_id=sid, word=word):
                return self._word_played(sid, word, now)
            case Tick():
                return self._tick(now)
            case UnitCounted(speech_id=sid, chars=chars):
                return self._counted(sid, chars, now)
            case UnitPlayed(speech_id=sid):
                return self._unit_played(sid, now)
            case AudioMark(speech_id=sid, stage=stage, t_ms=t_ms):
                return self._audio_mark(sid, stage, t_ms)
            case UnitUnspoken(speech_id=sid, reason=reason):
                return self._unit_unspoken(sid, reason, now)
            case ClauseUnsaid(speech_id=sid, text=text, reason=reason):
                return self._clause_unsaid(sid, text, reason, now)
            case CallerSpeaking():
                return self._caller_speaking(now)
            case OverBot():
                return self._caller_over_bot(now)
            case BotResumes():
                return self._bot_keeps_floor(now)
            case BargeIn():
                return self._barge_in(now)
            case Backchannel(text=text, resumed=resumed):
                return self._backchannel(text, now, resumed=resumed)
            case TurnCommitted(text=text, reason=reason, mend=mend):
                timing = HeardTiming(fed.t_end_of_speech, fed.t_window_closed, fed.t_committed)
                return self._caller_turn(text, now, closed_by=reason, heard=timing, mend=mend)
            case DroppedEmpty():
                return self._caller_quiet(now)
            case LineGiven(text=text, typed=typed):
                return self._caller_turn(text, now, typed=typed)
            case AppFrame(rtvi_type=rtvi_type, data=data, rtvi_id=rtvi_id):
                return self._from_app(rtvi_type, data, rtvi_id, now)
            case Configure(config=config):
                return self._configure(config, now)
            case HangUp(why=why):
                return self._hang_up(now, why)
            case BrainMalformed(detail=detail):
                return self._brain_malformed(detail, now)
            case BrainClosed(detail=detail):
                return self._brain_closed(detail, now)
            case Start():
                return self._start(now)
            case NotPlaced(reason=reason):
                return self._not_placed(reason)
            case _:
                assert_never(fed)

    # ---------------------------------------------------------------- opening

    def _start(self, now: int) -> list[Effect]:
        """Open the session: SessionStart is the first envelope and mints turn 1."""
        self._phase.fire(PhaseEvent.START)
        self.turn = 1
        self._started_ms = now
        self._pending = _Pending(1, now, GREETING_WAIT_MS)
        start = pb.SessionStart(
            turn_id=1,
            session_id=self.session_id,
            init=self.init,
            wire_version=WIRE_VERSION,
            capabilities=list(self.capabilities),  # type: ignore[arg-type]
        )
        greeting = TurnSent(1, TurnKind.GREETING)
        self._ledger.apply(now, greeting)
        out: list[Effect] = [SendFrame(envelope(start)), greeting]
        out.append(self._listen_with())
        return out + self._settle(now)

    def _not_placed(self, reason: str) -> list[Effect]:
        """The brain could not be reached: the call ends before SessionStart, not reached."""
        failed = EndedBy.DIAL_FAILED
        return [self._finish(PhaseEvent.NOT_PLACED, failed, reason)]

    @property
    def ledger(self) -> LedgerView:
        """The call's record so far, read-only (see :mod:`sandbox.call.ledger`)."""
        return self._ledger

    @property
    def in_play(self) -> list[Unit]:
        """Units still in play (opened, queued or playing), oldest first."""
        return self._book.unresolved()

    @property
    def units(self) -> list[Unit]:
        """The units the record keeps, in the order they opened: the first MAX_UNITS_KEPT
        the brain opened, then a sample (see :mod:`sandbox.call.unit_sample`)."""
        return self._book.kept

    @property
    def units_unkept(self) -> int:
        """How many units were opened (and honoured) but not kept: only counted."""
        return self._sample.unkept

    def unit_kept(self, speech_id: int) -> bool:
        """Whether what concerns unit ``speech_id`` is kept in the record: False only for a
        unit opened and not kept (an id never opened names nothing to leave out)."""
        unit = self._book.get(speech_id)
        return unit is None or unit.kept

    @property
    def started(self) -> bool:
        """SessionStart has been sent."""
        return self._phase.state in (Phase.LIVE, Phase.BRAIN_ENDING, Phase.ENDED)

    @property
    def ended(self) -> CallEnded | None:
        """How the call ended, once it is over; None while it is not."""
        return self._ended

    @property
    def _over(self) -> bool:
        """The call has ended (or ended before it started): it takes no more."""
        return self._phase.state in OVER

    # ------------------------------------------------------------ brain side

    def _from_brain(self, env: pb.Envelope, now: int) -> list[Effect]:
        """One decoded envelope from the brain."""
        if self._over:
            return []
        if not self.started:
            return [FrameDropped("the brain spoke before SessionStart")]
        self._opening.fire(OpeningEvent.FRAME)
        try:
            out = self._dispatch(env, now)
        except WireRuleBroken as broken:
            told = self._protocol(now, str(broken))
            out = [*told, broken.breach] if told else []  # recorded as far as errors are
        return out + self._settle(now)

    def surplus(self, env: pb.Envelope, *, starts_waiting: bool = False) -> SurplusFrame | None:
        """Whether a frame from the brain is one the call has no more use for, and of which
        kind (see :mod:`sandbox.call.surplus`); None: it is kept. Judged on the frames
        handled so far: those read but not yet handled can only make a frame surplus, never
        a surplus one of use again, so a frame judged early is never counted in error; but
        for a SpeechStart read and not yet handled (``starts_waiting``), which may open the
        unit a frame names, so no frame is judged to name a unit never opened meanwhile."""
        if self._over or self._phase.state is Phase.BRAIN_ENDING:
            return SurplusFrame(Surplus.AFTER_END)
        arm = env.WhichOneof("body")
        if arm == "rtvi":
            return SurplusFrame(Surplus.RTVI_PAST_CAP) if self._rtvi >= MAX_RTVI_KEPT else None
        if arm == "request":
            past = self._requests >= MAX_REQUESTS_KEPT
            return SurplusFrame(Surplus.REQUEST_PAST_CAP) if past else None
        if arm == "error":
            past = not env.error.fatal and self._ledger.error_count >= MAX_ERRORS
            return SurplusFrame(Surplus.ERROR_PAST_CAP) if past else None
        if arm == "turn_step":
            turn = env.turn_step.turn_id
            steps = self._ledger.steps_of(turn if 0 < turn <= self.turn else 0)
            taken = pb.CAPABILITY_TURN_STEPS in self.capabilities and steps < MAX_TURN_STEPS
            return None if taken else SurplusFrame(Surplus.STEP_PAST_CAP)
        if arm == "speech_start":
            start = env.speech_start
            if self._starts >= MAX_UNITS_KEPT:
                return SurplusFrame(Surplus.UNIT_PAST_CAP, start.speech_id)
            dead = 0 < start.turn_id <= self.watermark
            return SurplusFrame(Surplus.DEAD_UNIT, start.speech_id) if dead else None
        if arm not in ("speech_chunk", "speech_end", "speech_cancel"):
            return None
        sid: int = getattr(env, arm).speech_id
        unit = self._book.get(sid)
        if unit is None:
            never = not starts_waiting
            return SurplusFrame(Surplus.UNKNOWN_UNIT, sid) if never else None
        if sid in self._unsampled:
            return SurplusFrame(Surplus.UNIT_PAST_CAP, sid)
        if unit.fate is not None:
            return SurplusFrame(Surplus.DEAD_UNIT, sid)
        if unit.past_cap and arm == "speech_chunk":
            return SurplusFrame(Surplus.PAST_CAP, sid)
        return None

    def _counted(self, speech_id: int, chars: int, now: int) -> list[Effect]:
        """Frames from the brain for unit ``speech_id`` that were only counted (surplus past
        the record's sample, see :mod:`sandbox.call.surplus`), holding ``chars`` characters
        of text: dropped, not kept; and the brain was still sending for the unit at ``now``
        (a unit past its limit is not dead air while the brain streams on)."""
        unit = self._book.get(speech_id)
        if self._over or unit is None:
            return []
        unit.counted(chars, now)
        return self._settle(now)

    def _dispatch(self, env: pb.Envelope, now: int) -> list[Effect]:
        arm = env.WhichOneof("body")
        match arm:
            case "speech_start":
                return self._on_speech_start(env.speech_start, now)
            case "speech_chunk":
                return self._on_speech_chunk(env.speech_chunk, now)
            case "speech_end":
                return self._on_speech_end(env.speech_end, now)
            case "speech_cancel":
                return self._on_speech_cancel(env.speech_cancel, now)
            case "request":
                return self._on_request(env.request, now)
            case "rtvi":
                return self._on_rtvi(env.rtvi)
            case "turn_step":
                return self._on_turn_step(env.turn_step, now)
            case "end":
                return self._on_end(now)
            case "cancel":
                return self._end(now, ended_by=EndedBy.BRAIN_CANCEL, detail=env.cancel.reason)
            case "error":
                return self._on_error(env.error, now)
            case None if fields := unknown_arms(env):
                # A newer arm: recorded as it crossed, skipped, never refused.
                return [ArmSkipped(fields, env.ByteSize())]
            case None:
                empty = WireBreach(BrokenRule.EMPTY_ENVELOPE)
                raise WireRuleBroken("an empty envelope is not sent by a brain", empty)
            case _ if arm in VOQALIZE_ARMS:
                ours = WireBreach(BrokenRule.VOQALIZE_ARM, arm=arm)
                raise WireRuleBroken(f"{arm} is not sent by a brain", ours)
            case _:
                raise AssertionError(f"envelope arm {arm} has no handler")

    def _brain_malformed(self, detail: str, now: int) -> list[Effect]:
        """The brain sent something that is not an envelope; say so and go on."""
        if self._over:
            return []
        self._opening.fire(OpeningEvent.FRAME)
        return self._error_out(now, pb.ERROR_CODE_MALFORMED, detail)

    def _brain_closed(self, detail: str, now: int) -> list[Effect]:
        """The brain's socket closed. The socket is the session: the call ends. After the
        brain's End it is the close that End began, not a failure: the call is already
        ending as the brain's End, so what it relayed plays out as the End promised, its
        Finalizes recorded as undelivered, and the call ends as ended by the brain."""
        if self._over:
            return []
        if self._phase.state is Phase.BRAIN_ENDING:
            self._brain_gone = True
            return self._maybe_finish(now)
        return self._end(now, ended_by=EndedBy.BRAIN_CLOSED, detail=detail)

    def _on_speech_start(self, msg: pb.SpeechStart, now: int) -> list[Effect]:
        sid, turn = msg.speech_id, msg.turn_id
        self._starts += 1
        if self._phase.state is Phase.BRAIN_ENDING:
            raise WireRuleBroken(
                f"SpeechStart {sid} after the brain's End; frame dropped",
                WireBreach(BrokenRule.START_AFTER_END, sid, turn),
            )
        settings = self.settings
        unit = self._book.open(
            sid,
            turn,
            settings.voice,
            settings.tts_language,
            minted=self.turn,
            kept=lambda: self._sample.keeps(now),
        )
        if self._starts > MAX_UNITS_KEPT:
            self._unsampled.add(sid)
        unit.frame_at(now)
        if self._pending is not None and turn >= self._pending.turn_id:
            self._pending = None
        opened = UnitOpened(sid, turn, unit.voice, unit.language)
        self._ledger.apply(now, opened)
        # A unit not kept is honoured with no record of its own (only counted).
        recorded: list[Effect] = [opened] if unit.kept else []
        if turn <= self.watermark:
            # Opened for a dead turn: it is owed a Finalize and will never play.
            return [*recorded, *self._seal(unit, Fate.DEAD_ON_ARRIVAL), *self._flush()]
        return [*recorded, OpenUnit(sid, unit.voice, unit.language), *self._changed(unit)]

    def _on_end(self, now: int) -> list[Effect]:
        """The brain hangs up. What it already relayed plays out and is reported: an open
        bracket is closed where its text stops (an empty one is silent), and the call ends
        once every unit has its Finalize, so it always ends in bounded time."""
        self._phase.fire(PhaseEvent.BRAIN_END)
        out: list[Effect] = []
        for unit in self._book.unresolved():
            if unit.bracket is Bracket.OPEN:
                self._book.end(unit.speech_id)
                out += self._on_closed(unit)
        return out + self._flush() + self._maybe_finish(now)

    def _on_speech_chunk(self, msg: pb.SpeechChunk, now: int) -> list[Effect]:
        sid = msg.speech_id
        unit = self._book.get(sid)
        if unit is not None:
            unit.frame_at(now)
        kept = len(unit.discarded) if unit is not None else 0
        if self._book.chunk(sid, msg.text):
            assert unit is not None  # a relayed chunk is an open unit's
            self._ledger.mark(unit.turn_id, FIRST_CHUNK, now)
            relayed = SpeakText(sid, msg.text)
            self._ledger.apply(now, relayed)
            return [relayed, *self._changed(unit)]
        if unit is None or not unit.kept:
            return []
        if len(unit.discarded) > kept:  # kept for the record, never to be spoken
            return [TextKept(sid, msg.text), UnitChanged(sid)]
        return [UnitChanged(sid)]

    def _on_speech_end(self, msg: pb.SpeechEnd, now: int) -> list[Effect]:
        closed = self._closed_by_brain(msg.speech_id, cancelled=False)
        unit = self._book.end(msg.speech_id)
        if unit is None or unit.fate is not None:
            return closed
        return closed + self._on_closed(unit) + self._flush()

    def _closed_by_brain(self, speech_id: int, *, cancelled: bool) -> list[Effect]:
        """The record that the brain closed a unit the core knows (see
        :class:`~sandbox.call.turn_records.BracketClosed`)."""
        unit = self._book.get(speech_id)
        return [BracketClosed(speech_id, cancelled)] if unit is not None and unit.kept else []

    def _on_closed(self, unit: Unit) -> list[Effect]:
        """A bracket closed on a unit still in play: it plays out, or is silent if empty."""
        return [
            CloseUnit(unit.speech_id),
            *([] if unit.has_text else self._seal(unit, Fate.SILENT)),
        ]

    def _on_speech_cancel(self, msg: pb.SpeechCancel, now: int) -> list[Effect]:
        return self._closed_by_brain(msg.speech_id, cancelled=True) + self._cancel(msg)

    def _cancel(self, msg: pb.SpeechCancel) -> list[Effect]:
        if pb.CAPABILITY_SPEECH_CANCEL not in self.capabilities:
            # Not honoured here: the unit plays out and reports its full text (an id never
            # opened is still a broken rule).
            self._book.named_by_cancel(msg.speech_id)
            return []
        if self._book.cancel(msg.speech_id) is None:
            return []  # its one Finalize has gone, or is already owed by the first cancel
        # Today the cut is the whole floor: every unit still playing, queued or open.
        # The cut goes even when no unit has text yet: a unit opened with none stays queued
        # in playout and would hold every later unit back (the caller would hear no more).
        out: list[Effect] = [self._cut(CutReason.CANCEL)]
        for other in self._book.cut_by_cancel():
            out += self._seal(other, Fate.CANCELLED)
        return out + self._flush()

    def _on_request(self, msg: pb.Request, now: int) -> list[Effect]:
        self._requests += 1
        if msg.WhichOneof("op") != "configure":
            return self._response(msg.request_id, "the request names no operation")
        problem, out = self._apply(msg.configure, now)
        return [*self._response(msg.request_id, problem), *out]

    def _on_rtvi(self, msg: pb.RTVIFrame) -> list[Effect]:
        self._rtvi += 1
        problem = brain_frame_problem(msg)
        if problem is not None:
            words, breach = problem
            raise WireRuleBroken(f"{words}; frame dropped", breach)
        # turn_id annotates traces and never reaches the app.
        crossing = ToApp(rtvi_name(msg.type), msg.data, msg.id if msg.HasField("id") else None)
        return [crossing if self._rtvi <= MAX_RTVI_KEPT else replace(crossing, recorded=False)]

    def _on_turn_step(self, msg: pb.TurnStep, now: int) -> list[Effect]:
        if pb.CAPABILITY_TURN_STEPS not in self.capabilities:
            return []  # skipped, as a Voqalize that does not list the capability does
        # Never acknowledged, success or failure: one naming a turn never minted is
        # recorded with that flag, and shown, but nothing goes back to the brain.
        known = 0 < msg.turn_id <= self.turn
        raw = msg.SerializeToString()
        step = StepRecord(now, msg.turn_id, msg.kind, raw, known_turn=known)
        self._ledger.apply(now, step)
        return [step] if known else [step, StepForUnknownTurn(msg.turn_id, msg.kind, msg.name)]

    def _on_error(self, msg: pb.Error, now: int) -> list[Effect]:
        if not msg.fatal and self._errors_full():
            return []
        code = pb.ErrorCode.Name(msg.code) if msg.code in pb.ErrorCode.values() else str(msg.code)
        message = shortened(msg.message, MAX_ERROR_CHARS)
        taken = WireErrorRecord(now, Direction.IN, code, message, msg.fatal)
        self._ledger.apply(now, taken)
        told = BrainError(code.removeprefix("ERROR_CODE_"), message, msg.fatal)
        if not msg.fatal:
            # The brain owning up to a failure while it owes an answer is its answer: the
            # turn is over, the floor is the caller's again and the idle wait counts from
            # here (a late reply still plays). Waiting out the stall would leave the caller
            # staring at "thinking" for a reply that is not coming.
            if self._pending is not None and not self._pending.warned:
                self._pending = None
            return [taken, told]
        return [taken, told, *self._end(now, ended_by=EndedBy.BRAIN_ERROR, detail=message)]

    # ----------------------------------------------------------- caller side

    def _caller_speaking(self, now: int) -> list[Effect]:
        """Voice activity began on the caller's side (not yet a barge-in or a turn)."""
        if self._over or self._caller_heard:
            return []
        self._floor.fire(FloorEvent.VOICE)
        self._idle.caller_spoke()
        return self._settle(now)

    def _caller_quiet(self, now: int) -> list[Effect]:
        """The caller's sound stopped without a turn (noise, a dropped empty close)."""
        if self._over or not self._caller_heard:
            return []
        self._floor.fire(FloorEvent.QUIET)
        return self._land_stt_language() + self._settle(now)

    def _backchannel(self, text: str, now: int, *, resumed: bool = False) -> list[Effect]:
        """A short acknowledgement over the bot: shown, never a turn, never a cut.
        ``resumed``: the bot paused for it and then went on."""
        if self._over:
            return []
        self._ledger.add_backchannel(BackchannelRecord(now, text, resumed))
        return [CallerShown("backchannel", text, None, resumed)]

    def _caller_over_bot(self, now: int) -> list[Effect]:
        """The caller's voice began over the bot: hold playout while it is judged (pause,
        then decide). The wire sees nothing unless it turns out to be a barge-in."""
        if self._over or self._held:
            return []
        if not any(u.has_text for u in self._book.unresolved()):
            return []  # nothing is audible: there is nothing to hold
        self._hold.fire(HoldEvent.HOLD)
        self._last_sound_ms = now  # the caller's voice: no dead air while it is judged
        self._idle.caller_spoke()
        return [PausePlayout(), *self._settle(now)]

    def _bot_keeps_floor(self, now: int) -> list[Effect]:
        """The voice over the bot was a backchannel or a noise: playout goes on exactly where
        it paused, and its units' heard text will read as if no pause had happened."""
        if self._over or not self._held:
            return []
        self._hold.fire(HoldEvent.RESUME)
        self._last_sound_ms = now
        return [ResumePlayout(), *self._settle(now)]

    def _barge_in(self, now: int) -> list[Effect]:
        """Caller speech over the bot took the floor: kill what is in flight. After a pause,
        what each unit played before it is exactly its heard text."""
        if self._over:
            return []
        self._idle.caller_spoke()
        out = self._interrupt(now, taken=True)
        # The caller cuts in when the barge-in killed a turn; else they simply speak.
        self._floor.fire(FloorEvent.CUT_IN if out else FloorEvent.VOICE)
        if self._held:  # nothing in flight to cut, but the held playout must not go on
            out.append(self._cut(CutReason.BARGE_IN))
        return out + self._settle(now)

    def _caller_turn(
        self,
        text: str,
        now: int,
        *,
        typed: bool = False,
        closed_by: TurnClose = TurnClose.GIVEN,
        heard: HeardTiming | None = None,
        mend: TranscriptMend | None = None,
    ) -> list[Effect]:
        """A committed caller turn (spoken, or typed as the app's send-text).

        ``closed_by`` records how endpointing closed a spoken turn ("final", "confident"
        or "silence"), ``heard`` when the listener heard it end: its waterfall starts
        there (see :mod:`sandbox.call.waterfall`), and ``mend`` how its transcript was
        brought back to what the caller could have said (the report counts them). Its
        text reaches the brain once, verbatim: a caller who resumes after a commit starts a
        new turn, and the Interruption it raises kills the old one, so the brain answers
        only the latest and never sees one message repeated in another.
        """
        if self._over:
            return []
        text = text.strip()
        if not text:
            self._floor.fire(FloorEvent.QUIET)
            return self._settle(now)
        self._floor.fire(FloorEvent.TURN)
        out = self._interrupt(now)  # a new turn outranks anything still owed or in play
        out += self._land_stt_language()
        self.turn += 1
        sent = TurnSent(self.turn, TurnKind.CALLER, text)
        self._ledger.apply(now, sent)
        self._ledger.close_turn(self.turn, TurnClose.TYPED if typed else closed_by, mend)
        marks = on_the_line(heard.marks(), self.line_ms) if heard is not None else {}
        self._ledger.open_timeline(self.turn, {**marks, USER_MESSAGE: now})
        self._pending = _Pending(self.turn, now, self.stall_ms)
        self._idle.caller_spoke()
        out.append(SendFrame(envelope(pb.UserMessage(turn_id=self.turn, text=text))))
        out.append(sent)
        out.append(CallerShown("typed" if typed else "spoken", text, self.turn))
        return out + self._settle(now)

    def _from_app(self, rtvi_type: str, data: str, rtvi_id: str | None, now: int) -> list[Effect]:
        """An RTVI message from the app. send-text becomes a caller turn; the rest cross."""
        if self._over:
            return []
        number = RTVI_TYPE_BY_NAME.get(rtvi_type, -1)
        if number == pb.RTVI_TYPE_SEND_TEXT:
            return self._caller_turn(_send_text_content(data), now, typed=True)
        problem = app_frame_problem(number, data) if number >= 0 else f"unknown RTVI {rtvi_type}"
        if problem:
            return [AppFrameRefused(problem)]
        frame = pb.RTVIFrame(type=number, data=data)  # type: ignore[arg-type]
        if rtvi_id is not None:
            frame.id = rtvi_id
        return [SendFrame(envelope(frame))]

    def _configure(self, config: pb.Config, now: int) -> list[Effect]:
        """A settings change from the user, validated and landing as a brain's Config would
        (its ``ConfigRejected`` or ``ConfigApplied`` says which)."""
        if self._over:
            return []
        _, out = self._apply(config, now)
        return out + self._settle(now)

    def _hang_up(self, now: int, why: str = "") -> list[Effect]:
        """The caller ends the call; ``why``: what ended it on their side, when it was not
        the person (their audio file ran out, the demo's scene ended)."""
        if self._over:
            return []
        return self._end(now, ended_by=EndedBy.CALLER, detail=why, say_end=True)

    # --------------------------------------------------------------- playout

    def _word_played(self, speech_id: int, word: str, now: int) -> list[Effect]:
        """The playout clock released one word of a unit: it counts as heard."""
        unit = self._book.get(speech_id)
        if unit is None or unit.fate is not None:
            return []  # a word racing a cut lands after the unit's heard text is fixed
        self._last_sound_ms = now
        if not unit.play(word):
            self._ledger.skip_alignment()
        # A playout that reports no samples (the simulated one) starts a word's audio as
        # the word counts as heard; a real one's own mark came first and stands.
        self._ledger.mark(unit.turn_id, FIRST_SAMPLE, now)
        # Settled like every other event (a word ends the dead air being shown), so a tick
        # before a timer is due has nothing to do and the host need not ask.
        return [*self._changed(unit), *self._settle(now)]

    def _audio_mark(self, speech_id: int, stage: str, t_ms: int) -> list[Effect]:
        """The playout saw a moment of a unit's audio (one of ``PLAYOUT_STAGES``) at
        ``t_ms``: its turn's waterfall keeps the first of each."""
        unit = self._book.get(speech_id)
        if unit is not None and stage in PLAYOUT_STAGES:
            for reached, at in on_the_line({stage: t_ms}, self.line_ms).items():
                self._ledger.mark(unit.turn_id, reached, at)
        return []

    def _unit_played(self, speech_id: int, now: int) -> list[Effect]:
        """All of a closed unit's audio has been released."""
        unit = self._book.get(speech_id)
        if unit is None or unit.fate is not None or unit.bracket is not Bracket.ENDED:
            return []
        self._last_sound_ms = now
        if unit.unspoken:  # stopped at a clause it could not say: heard is what played
            out = self._seal(unit, Fate.UNSPOKEN) + self._flush()
        else:
            unit.play_all()
            out = self._seal(unit, Fate.PLAYED) + self._flush()
        return out + self._maybe_finish(now) + self._settle(now)

    def _unit_unspoken(self, speech_id: int, reason: str, now: int) -> list[Effect]:
        """The playout could not speak a unit: what of it played stays heard, nothing more
        will be, and ``reason`` is kept for the record (an unheard greeting is a silent
        failure, and the record says why)."""
        unit = self._book.get(speech_id)
        if unit is None or unit.fate is not None:
            return []
        unit.cannot_speak(reason)
        out = self._seal(unit, Fate.UNSPOKEN) + self._flush()
        return out + self._maybe_finish(now) + self._settle(now)

    def _clause_unsaid(self, speech_id: int, text: str, reason: str, now: int) -> list[Effect]:
        """The playout could not say a clause of a unit (``text``, its start): the unit stops
        there. What played before it stays heard and is its Finalize once that audio is out;
        later units play. The brain is told at once, with a non-fatal INTERNAL Error naming
        the unit: the fault is Voqalize's, the text was the brain's to send."""
        unit = self._book.get(speech_id)
        if unit is None or unit.fate is not None or unit.unspoken:
            return []
        unit.cannot_speak(f"could not say {text!r}: {reason}")
        words = (
            f"speech_id {speech_id} (turn {unit.turn_id}): Voqalize could not say {text!r} "
            f"({reason}); the unit stops there, its Finalize reports what was heard, and "
            "later units play"
        )
        # The brain is told; the user sees the frame (no broken wire rule to show).
        told = self._error_out(now, pb.ERROR_CODE_INTERNAL, words)
        return [e for e in told if isinstance(e, SendFrame)] + self._settle(now)

    # ------------------------------------------------------------------ time

    @property
    def awaiting_brain(self) -> bool:
        """The brain owes an answer (the greeting, or a reply to a turn) and the wait for it
        has not yet lapsed."""
        return self._pending is not None and not self._pending.warned

    def next_deadline(self) -> int | None:
        """When ``tick`` next has something to do, or None."""
        if self._over:
            return None
        times = [self._idle.deadline(), self._silence_due(), self._dead_air_due()]
        if self._pending is not None and not self._pending.warned:
            times.append(self._pending.due_ms)
        due = [t for t in times if t is not None]
        return min(due) if due else None

    def _silence_due(self) -> int | None:
        """When a brain that has sent nothing since SessionStart is reported, if it is due."""
        if self._opening.state is not Opening.AWAITED or self._started_ms is None:
            return None
        return self._started_ms + SILENT_BRAIN_MS

    def dead_air_at(self, now: int) -> DeadAir | None:
        """The dead air inside an open unit being shown at ``now``, if any, with how long it
        has lasted: the brain has sent nothing for an open unit and nothing has played for
        ``DEAD_AIR_MS`` or more."""
        gap = self._gap
        return None if gap is None else replace(gap, silent_ms=now - self._gap_since)

    def _quiet(self) -> tuple[Unit, int] | None:
        """The oldest open unit and since when the line has been quiet on it: since the later
        of the brain's last frame for an open unit and the last word played. None while no
        unit is open, or playout is paused (the caller's voice is being judged)."""
        opened = [u for u in self._book.unresolved() if u.bracket is Bracket.OPEN]
        if not opened or self._held:
            return None
        since = max(self._last_sound_ms, *(u.last_frame_ms for u in opened))
        return opened[0], since

    def _dead_air_due(self) -> int | None:
        """When quiet on an open unit becomes dead air, if it is not already."""
        quiet = self._quiet()
        if quiet is None or self._gap is not None:
            return None
        return quiet[1] + DEAD_AIR_MS

    def _tick(self, now: int) -> list[Effect]:
        """Time passed: fire the idle turn or the stall warning when due."""
        if self._over:
            return []
        out: list[Effect] = []
        due = self._silence_due()
        if due is not None and now >= due:
            self._opening.fire(OpeningEvent.SILENCE)
            waited = now - (due - SILENT_BRAIN_MS)  # since SessionStart
            self._ledger.add_stall(StallRecord(now, 1, waited))
            out.append(BrainStalled(1, waited))
        quiet = self._quiet()
        if quiet is not None and self._gap is None and now >= quiet[1] + DEAD_AIR_MS:
            unit, since = quiet
            self._gap, self._gap_since = DeadAir(unit.turn_id, unit.speech_id, now - since), since
            out.append(self._gap)
        pend = self._pending
        if pend is not None and not pend.warned and now >= pend.due_ms:
            pend.warned = True
            if pend.turn_id > 1 and not pend.idle:
                self._ledger.add_stall(StallRecord(now, pend.turn_id, now - pend.since_ms))
                out.append(BrainStalled(pend.turn_id, now - pend.since_ms))
        # The idle wait only runs while the floor is silent (see _settle), so a due one fires.
        fired = self._idle.fire(now)
        if fired is not None:
            level, idle_ms = fired
            self.turn += 1
            self._pending = _Pending(self.turn, now, self.stall_ms, idle=True)
            idle = pb.UserIdle(turn_id=self.turn, level=level, idle_ms=idle_ms)
            sent = TurnSent(self.turn, TurnKind.IDLE, level=level)
            self._ledger.apply(now, sent)
            out += [SendFrame(envelope(idle)), sent]
            out.append(CallerIdle(self.turn, level, idle_ms))
        return out + self._settle(now)

    # ------------------------------------------------------------- reporting

    @property
    def state(self) -> CallState:
        """Where the call stands, for the status line."""
        return self._state_of(None)

    def _state_of(self, in_play: list[Unit] | None) -> CallState:
        """:attr:`state`, given the units unresolved now when they are at hand."""
        if self._over:
            return CallState.ENDED
        if self._phase.state is Phase.NEW:
            return CallState.CONNECTING
        if self._held:
            return CallState.PAUSED
        if self._floor.state is Floor.SPEAKING:
            return CallState.CALLER_SPEAKING
        if self._floor.state is Floor.CUTTING_IN:
            return CallState.INTERRUPTED
        if in_play is None:
            in_play = self._book.unresolved()
        if any(u.has_text for u in in_play):
            return CallState.SPEAKING
        if self._answer_owed or in_play:
            return CallState.THINKING
        return CallState.LISTENING

    def snapshot(self) -> CallSnapshot:
        """The call as it stands, frozen (see :mod:`sandbox.call.snapshot`)."""
        return CallSnapshot(
            self.session_id,
            tuple(self.capabilities),
            self.state,
            self.watermark,
            self.settings,
            self._ended,
            self._ledger.latest_timeline(),
            self._gap,
            self._gap_since,
        )

    def outcome(self) -> outcomes.Outcome:
        """The word the call's record ends with."""
        return self.verdict().word

    def verdict(self, ending: tuple[EndedBy, str] | None = None) -> outcomes.Verdict:
        """The outcome and, when the call was not reached, why (see
        :mod:`sandbox.call.outcome`). ``ending``: (ended_by, detail) of an end being decided
        now; by default the call's own end, if it has ended."""
        if ending is None and self.ended is not None:
            ending = (self.ended.ended_by, self.ended.detail)
        ended_by, detail = ending or (None, "")
        greeting = [u for u in self.units if u.turn_id == 1 and u.has_text]
        unsaid = next((u.unspoken for u in greeting if u.fate is Fate.UNSPOKEN), None)
        # A fatal Error ends the call: the brain's first is its last.
        fatal = next((e for e in self._ledger.errors if e.dir == "in" and e.fatal), None)
        refused = fatal is not None and fatal.code == "ERROR_CODE_VERSION"
        unreached = None
        if not self.started:
            dialed = ended_by is EndedBy.DIAL_FAILED
            unreached = f"the dial failed: {detail}" if dialed else "the brain was never dialed"
        return outcomes.decide(
            outcomes.Facts(
                caller_lines=self._ledger.caller_lines,
                unreached=unreached,
                refusal=fatal.message if fatal is not None and refused else None,
                greeting_unsaid=None if any(u.heard for u in greeting) else unsaid,
                brain_failed=self._brain_failure(ended_by, detail, fatal),
                bot_heard=any(u.heard for u in self.units),
            )
        )

    def _brain_failure(
        self, ended_by: EndedBy | None, detail: str, fatal: WireErrorRecord | None
    ) -> str | None:
        """How the brain failed the call, if it did: it ended it abruptly, or left the
        greeting (sending nothing at all) or a caller's turn unanswered past the stall."""
        if ended_by is EndedBy.BRAIN_CLOSED:
            return detail
        if ended_by is EndedBy.BRAIN_ERROR and fatal is not None:
            return f"it sent a fatal {fatal.code.removeprefix('ERROR_CODE_')} Error: {detail}"
        if ended_by is EndedBy.BRAIN_CANCEL:
            return "it cancelled the call" + (f": {detail}" if detail else "")
        stall = next(iter(self._ledger.stalls), None)
        if stall is None:
            if self._opening.state is not Opening.HEARD and self._ledger.caller_lines:
                # However soon the caller hung up: they spoke, and nothing came back.
                return "it sent no frame at all, so the caller heard nothing from it"
            return None
        if stall.turn_id == 1:
            return f"it sent nothing in the {stall.waited_ms / 1000:g} s after SessionStart"
        return f"it left turn {stall.turn_id} unanswered for {stall.waited_ms / 1000:g} s"

    def unit(self, speech_id: int) -> Unit | None:
        """A unit by its brain-minted id."""
        return self._book.get(speech_id)

    # -------------------------------------------------------------- internals

    def _seal(self, unit: Unit, fate: Fate) -> list[Effect]:
        """Seal the unit's fate, and so its heard text, and record both (see
        :mod:`sandbox.call.unit_records`)."""
        if not self._book.seal(unit, fate) or not unit.kept:
            return []
        sealed = UnitSealed(unit.speech_id, fate, unit.heard, unit.unspoken)
        return [sealed, UnitChanged(unit.speech_id)]

    def _changed(self, unit: Unit) -> list[Effect]:
        """The screen's word that ``unit`` changed: none for a unit not kept (not shown)."""
        return [UnitChanged(unit.speech_id)] if unit.kept else []

    def _flush(self) -> list[Effect]:
        """Send every Finalize the book says is due, in its order."""
        out: list[Effect] = []
        for fin in self._book.flush():
            sid = fin.speech_id
            kept = self.unit_kept(sid)
            past = SurplusFrame(Surplus.UNIT_PAST_CAP, sid) if sid in self._unsampled else None
            # A unit not kept has its Finalize and no record of it: the end of a call that
            # opened 200,000 units writes no 200,000 records.
            if self._brain_gone:  # recorded with its heard text; nothing left to carry it
                out += [FinalizeSent(sid, delivered=False), UnitChanged(sid)] if kept else []
                continue
            sent: list[Effect] = [FinalizeSent(sid), UnitChanged(sid)] if kept else []
            out += [SendFrame(envelope(fin), past), *sent]
        return out

    def _interrupt(self, now: int, *, taken: bool = False) -> list[Effect]:
        """Raise the watermark to the current turn and cut what is in flight.

        ``taken``: the caller took the floor over the bot (a decided barge-in): the turn
        dies even if nothing is playing this instant (a cancel may just have cut it).
        Otherwise only when something is in flight or an answer is still owed, so a
        caller who resumes is not answered twice; the optional greeting is exempt.
        """
        in_flight = self._book.unresolved()
        owed = self._pending is not None and self._pending.turn_id > 1
        if self.turn <= self.watermark or not (in_flight or owed or taken):
            return []
        through = self.turn
        self.watermark = max(self.watermark, through)
        self._pending = None
        out: list[Effect] = [
            SendFrame(envelope(pb.Interruption(through_turn=through))),
            WatermarkRaised(through),
        ]
        if in_flight:  # also a unit with no text yet: queued in playout, it holds later ones
            out.append(self._cut(CutReason.BARGE_IN))
        for unit in in_flight:
            out += self._seal(unit, Fate.BARGED)
        return out + self._flush()

    def _cut(self, reason: CutReason) -> CutPlayout:
        """Silence playout (a cut also ends a pause)."""
        self._hold.fire(HoldEvent.CUT)
        return CutPlayout(reason)

    def _settle(self, now: int) -> list[Effect]:
        """After every event: the idle timer hears whether the line sounds (the caller's
        voice, a unit with text in play) and whether its wait is held (a unit is in play, or
        an answer to the caller or the greeting is owed; an unanswered idle turn holds
        nothing: see :mod:`sandbox.call.idle`); and the status line hears of a new state."""
        out = self._gap_ended(now)
        in_play = self._book.unresolved()
        sounding = self._caller_heard or any(u.has_text for u in in_play)
        self._idle.settle(now, sounding=sounding, held=self._answer_owed or bool(in_play))
        return out + self._state_effects(in_play)

    def _gap_ended(self, now: int) -> list[Effect]:
        """End the dead air being shown once the line is no longer quiet since it began (the
        brain sent a frame for an open unit, none is open, or playout paused); record it."""
        gap = self._gap
        if gap is None:
            return []
        quiet = self._quiet()
        if quiet is not None and quiet[1] == self._gap_since:
            return []
        self._gap = None
        since, silent = self._gap_since, now - self._gap_since
        self._ledger.add_dead_air(DeadAirRecord(since, gap.turn_id, gap.speech_id, silent))
        return [DeadAirEnded(gap.turn_id, gap.speech_id, silent)]

    @property
    def _caller_heard(self) -> bool:
        """The caller's voice is on the line (speaking, or cutting in)."""
        return self._floor.state in (Floor.SPEAKING, Floor.CUTTING_IN)

    @property
    def _held(self) -> bool:
        """Playout is held while the caller's voice over it is judged."""
        return self._hold.state is Hold.HELD

    @property
    def _answer_owed(self) -> bool:
        """The brain owes an answer to the caller or the greeting, and the wait for it has
        not lapsed (an idle turn owes none: see ``_Pending.idle``)."""
        pend = self._pending
        return pend is not None and not pend.warned and not pend.idle

    def _maybe_finish(self, now: int) -> list[Effect]:
        if self._phase.state is Phase.BRAIN_ENDING and not self._book.unresolved():
            return self._end(now, ended_by=EndedBy.BRAIN, detail="")
        return []

    def _end(
        self, now: int, *, ended_by: EndedBy, detail: str, say_end: bool = False
    ) -> list[Effect]:
        out: list[Effect] = []
        left = self._book.unresolved()
        if any(u.has_text for u in left):
            out.append(self._cut(CutReason.END))
        for unit in left:
            out += self._seal(unit, Fate.ABANDONED)
        out += self._flush()  # every bracket still gets its one Finalize
        out += self._gap_ended(now)
        if say_end:
            out.append(SendFrame(envelope(pb.End())))
        ended = self._finish(PhaseEvent.END, ended_by, detail)
        return [*out, ended, *self._settle(now)]

    def _finish(self, event: PhaseEvent, ended_by: EndedBy, detail: str) -> CallEnded:
        """End the call's phase by ``event`` and keep how it ended: the one place it ends."""
        self._phase.fire(event)
        self._ended = CallEnded(self.verdict((ended_by, detail)).word, ended_by, detail)
        return self._ended

    def _apply(self, config: pb.Config, now: int) -> tuple[str | None, list[Effect]]:
        problem = validate(config, self.settings, self.caps)
        if problem:
            return problem, [ConfigRejected(problem)]
        before = self.settings
        after = merged(config, before)
        out: list[Effect] = []
        if after.stt_language != before.stt_language and self._caller_heard:
            # The turn being spoken still transcribes as spoken; the change lands at commit.
            self._stt_language_pending = after.stt_language
            after = _with_stt_language(after, before.stt_language)
        self.settings = after
        if config.idle.HasField("timeout_ms"):
            self._idle.set_timeout(after.idle_ms, now)
        if (after.stt_language, after.patience) != (before.stt_language, before.patience):
            out.append(self._listen_with())
        out.append(ConfigApplied(after))
        return None, out

    def _land_stt_language(self) -> list[Effect]:
        if self._stt_language_pending is None:
            return []
        self.settings = _with_stt_language(self.settings, self._stt_language_pending)
        self._stt_language_pending = None
        return [self._listen_with()]

    def _listen_with(self) -> ListenWith:
        lang = ISO_BY_LANGUAGE.get(self.settings.stt_language, "en")
        return ListenWith(lang, self.settings.effective_patience)

    def _response(self, request_id: int, problem: str | None) -> list[Effect]:
        """The Response to a Request, and its record (past MAX_REQUESTS_KEPT, a Response
        the record keeps a sample of, and no record: it would grow the store without end)."""
        status = pb.STATUS_REJECTED if problem else pb.STATUS_ACCEPTED
        resp = pb.Response(request_id=request_id, status=status, detail=problem or "")
        if self._requests > MAX_REQUESTS_KEPT:
            return [SendFrame(envelope(resp), SurplusFrame(Surplus.REQUEST_PAST_CAP))]
        answered = RequestAnswered(request_id, pb.Status.Name(status), problem or "")
        return [SendFrame(envelope(resp)), answered]

    def _protocol(self, now: int, message: str) -> list[Effect]:
        return self._error_out(now, pb.ERROR_CODE_PROTOCOL, message)

    def _error_out(self, now: int, code: int, message: str) -> list[Effect]:
        if self._errors_full():
            return []
        if self._ledger.error_count == MAX_ERRORS - 1:
            message += " (the last error this call records; later ones are only counted)"
        name = pb.ErrorCode.Name(code)
        told = WireErrorRecord(now, Direction.OUT, name, message, False)
        self._ledger.apply(now, told)
        err = pb.Error(code=code, message=message, fatal=False)  # type: ignore[arg-type]
        return [
            SendFrame(envelope(err)),
            told,
            ProtocolViolation(name.removeprefix("ERROR_CODE_"), message),
        ]

    def _errors_full(self) -> bool:
        """MAX_ERRORS are recorded: count this one and drop it."""
        if self._ledger.error_count < MAX_ERRORS:
            return False
        self._ledger.leave_error_uncounted()
        return True

    def _state_effects(self, in_play: list[Unit]) -> list[Effect]:
        """A StateChanged when the state moved (``in_play``: the units unresolved now)."""
        state = self._state_of(in_play)
        if state == self._state:
            return []
        self._state = state
        return [StateChanged(state)]


def shortened(text: str, chars: int) -> str:
    """``text`` whole up to ``chars`` characters, else its start and how much was left out."""
    if len(text) <= chars:
        return text
    return f"{text[:chars]}… [{len(text) - chars:,} more characters]"


def _with_stt_language(settings: Settings, language: int) -> Settings:
    return replace(settings, stt_language=language)


def _send_text_content(data: str) -> str:
    """The text of an RTVI send-text: pipecat puts it in ``content`` (``text`` accepted too)."""
    try:
        payload = json.loads(data) if data else {}
    except json.JSONDecodeError:
        return data
    if isinstance(payload, dict):
        for key in ("content", "text"):
            value = payload.get(key)
            if isinstance(value, str):
                return value
    return payload if isinstance(payload, str) else ""
