"""The listening half, glued: capture blocks in, caller events out. No devices, no event loop.

Per capture block: echo canceller (also resamples to 16 kHz) -> 30 ms frames -> VAD -> the
endpointer (turns) and the floor judge (pause, then decide). The floor judge also hears the
double-talk detector, which finds a voice over the bot on the raw microphone while the
canceller is still learning the echo path (:mod:`sandbox.audio.doubletalk`). Where that
detector finds no echo at all (headphones), the listener hears the raw microphone instead
of the canceller's output, which would mute the start of each word said over the bot, and
the floor judge pauses the bot on a shorter onset (no echo's residue to tell it from). Whisper runs
through a ``transcribe`` hook returning a :class:`concurrent.futures.Future`, so the host
decides where it runs (one worker thread: Whisper already uses both cores); the listener polls
the future on each frame.

What it emits (the host pairs them with the call core):

* :class:`CallerSpeaking` ``(t)`` - a caller turn began (``t`` = onset). Not emitted for speech
  that overlaps the bot until that speech takes the floor.
* :class:`OverBot` ``(t_onset, t)`` - voice began over the bot: pause playout while it is
  judged (see :mod:`sandbox.audio.bargein`).
* :class:`BotResumes` ``(t_onset, t, why, text)`` - it did not take the floor: playout goes on.
* :class:`BargeIn` ``(t_onset, t_decided)`` - cut the bot now. Followed at once by
  CallerSpeaking for the turn that took the floor, or by DroppedEmpty when that turn is
  already over: every barge-in is followed by the caller's turn closing.
* :class:`Backchannel` ``(text, t_onset, t_end, resumed)`` - speech under the bot that never
  took the floor ("mm hmm"); for display and the record only, never a UserMessage. Not emitted
  when Whisper heard nothing. ``resumed``: the bot paused for it, then went on.
* :class:`TurnCommitted` ``(text, reason, t_end_of_speech, t_window_closed, t_committed)`` - one
  committed turn; ``reason`` is "final", "confident" or "silence" (see
  :mod:`sandbox.audio.endpointer`), ``t_window_closed`` when the endpointer closed it.
* :class:`DroppedEmpty` ``(reason)`` - a turn closed but Whisper heard nothing in it (a cough, a
  door): there is no question to answer, so nothing is handed on.

Commits come out in turn order. A caller who resumes right after a commit starts a new turn and
gets a new TurnCommitted, which the core sends as a new turn (each text reaches the brain once).

Speculation: at each PauseStarted the audio turn model (a ``judge_turn`` hook, also returning
a future; give it the same single worker, where it goes ahead of the transcription) hears the
turn so far, and the turn so far is transcribed; the model's probability and the guess's shape
decide the endpointer's confident/silence window and, if the caller does not resume before the
close, the guess *is* the committed text (no second Whisper run). At most one transcription
runs at a time; turns that have closed go first, in order, then the guess for the pause in
progress.

Speech that began while the bot held the floor is an *overlap*: it becomes a turn when it
barges in, or when the bot stops while the caller is still talking (or talks again); if it
closes with the bot still speaking - or pauses, and the bot then stops - it was a backchannel.
``bot_speaking`` should be true for the whole time the bot holds the floor, gaps between its
sentences included.

Times are the host's milliseconds: a block's ``t_ms`` is when its first sample was captured;
frames are timed from there (to within the canceller's 10 ms framing).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from sandbox.audio.bargein import FloorJudge
from sandbox.audio.doubletalk import BOT_SILENT_RMS, DoubleTalk
from sandbox.audio.echo_canceller import EchoCanceller
from sandbox.audio.endpointer import (
    PATIENCE_DEFAULT,
    Endpointer,
    EndpointEvent,
    PauseStarted,
    Resumed,
    SpeechStarted,
    TurnEnded,
    asks_question,
    text_shape,
)
from sandbox.audio.prosody import final_fall, final_rise
from sandbox.audio.recognizer import Recognizer
from sandbox.audio.resample import Float32, as_int16
from sandbox.audio.stt import SAMPLE_RATE, Transcript
from sandbox.audio.turn_model import TurnModel, turn_model_hears
from sandbox.audio.vad import FRAME_MS, FrameVad
from sandbox.call import endpointing_steps as steps
from sandbox.call.caller_events import (
    Backchannel,
    BargeIn,
    BotResumes,
    CallerSpeaking,
    DroppedEmpty,
    FloorEvent,
    ListenerEvent,
    OverBot,
    TurnClose,
    TurnCommitted,
)
from sandbox.call.endpointing_steps import EndpointingStep

#: Whisper hook: (float32 16 kHz audio, ISO language) -> a future transcript.
TranscribeFn = Callable[[Float32, str], "Future[Transcript]"]
#: Turn model hook: (float32 16 kHz audio of the turn so far) -> a future probability that
#: the caller has finished.
JudgeTurnFn = Callable[[Float32], "Future[float]"]

_Result = TypeVar("_Result")

#: Audio kept from before the onset is detected, so Whisper hears the first consonant.
PREROLL_MS = 300
_FRAME = SAMPLE_RATE * FRAME_MS // 1000
#: Frames before a voice's onset kept for judging it (its first consonant).
BURST_LEAD_FRAMES = 2


def in_executor(
    transcriber: Recognizer,
    executor: Executor,
    *,
    brief: bool = False,
    on_done: Callable[[], None] | None = None,
) -> TranscribeFn:
    """The usual hook: run ``transcriber`` on ``executor`` (give it a single worker);
    ``brief``: its quick read of a burst (see :meth:`Recognizer.transcribe`); ``on_done``:
    told, on the worker's thread, as each finishes (the host then calls :meth:`Listener.poll`)."""

    def submit(pcm: Float32, language: str) -> Future[Transcript]:
        future = executor.submit(transcriber.transcribe, pcm, language=language, brief=brief)
        return _telling(future, on_done)

    return submit


def judged_in(
    model: TurnModel, executor: Executor, on_done: Callable[[], None] | None = None
) -> JudgeTurnFn:
    """The usual turn model hook: run ``model`` on ``executor`` (Whisper's single worker);
    ``on_done`` as for :func:`in_executor`."""

    def submit(pcm: Float32) -> Future[float]:
        return _telling(executor.submit(model.probability, pcm), on_done)

    return submit


def _telling(future: Future[_Result], on_done: Callable[[], None] | None) -> Future[_Result]:
    if on_done is not None:
        future.add_done_callback(lambda _: on_done())
    return future


@dataclass
class _Turn:
    onset: int
    language: str
    overlap: bool
    audio: list[Float32]
    epoch: int = 0  # bumped whenever the caller resumes: guesses of older epochs are stale
    paused: bool = False
    paused_frames: int = 0  # len(audio) when the current pause began: what the turn model hears
    resumed_bot: bool = False  # an overlap the bot paused for and then went on over
    guess: tuple[int, Transcript] | None = None
    judged: tuple[int, Future[float]] | None = None  # the turn model on this epoch's pause
    ended: TurnEnded | None = None

    def has_current_guess(self) -> bool:
        return self.guess is not None and self.guess[0] == self.epoch


class Listener:
    """Turns capture audio into caller events; see the module docstring."""

    def __init__(
        self,
        transcribe: TranscribeFn,
        *,
        echo: EchoCanceller | None = None,
        patience: int = PATIENCE_DEFAULT,
        language: str = "en",
        floor: FloorJudge | None = None,
        judge_turn: JudgeTurnFn | None = None,
        read_brief: TranscribeFn | None = None,
        narrowband: bool = False,
    ) -> None:
        self._transcribe = transcribe
        #: The quick read of a burst over the bot; the full read when none is given.
        self._read_brief = read_brief or transcribe
        self._judge_turn = judge_turn
        self._echo = echo if echo is not None else EchoCanceller(enabled=False)
        #: Told of each block after echo cancellation (16 kHz float) with its time: the
        #: microphone as the call heard it, for the session's recording.
        self.on_cleaned: Callable[[Float32, int], None] | None = None
        #: Told of each endpointing step worth recording, ``(t, kind, data)``: the voice
        #: pausing and resuming, each speculative transcript (the guess and whether it reads
        #: as finished), each read of a voice over the bot (quick or full) and how the turn
        #: closed.
        self.on_decision: Callable[[int, EndpointingStep], None] | None = None
        self._vad = FrameVad(sample_rate=SAMPLE_RATE)
        self._raw_vad = FrameVad(sample_rate=SAMPLE_RATE)
        self._doubletalk = DoubleTalk()
        self._endpointer = Endpointer(patience, narrowband=narrowband)
        self._floor = floor if floor is not None else FloorJudge()
        self._floor.language = language
        self._burst: list[Float32] | None = None  # the voice over the bot, while it is judged
        self._judging: Future[Transcript] | None = None
        self._judging_asked = 0  # when the read in flight was asked for (ms)
        self._judging_brief = False  # whether the read in flight is a quick one
        self._language = language
        self._pending: Float32 = np.zeros(0, dtype=np.float32)
        self._pending_raw: Float32 = np.zeros(0, dtype=np.float32)
        self._pending_level: Float32 = np.zeros(0, dtype=np.float32)
        self._pending_t = 0
        self._preroll: deque[Float32] = deque(maxlen=PREROLL_MS // FRAME_MS)
        self._turn: _Turn | None = None
        self._closed: deque[_Turn] = deque()  # ended, waiting for their transcript
        self._job: tuple[_Turn, int, Future[Transcript]] | None = None
        self._barged = False  # the caller took the floor from the bot still fading out
        self._now = 0

    @property
    def settled(self) -> bool:
        """Nothing of the caller's is open: no turn, none waiting for its transcript, no
        voice over the bot being judged."""
        return (
            self._turn is None
            and not self._closed
            and self._job is None
            and self._burst is None
            and self._judging is None
        )

    def set_patience(self, patience: int) -> None:
        """stt.patience: applies at once, including to a pause in progress."""
        self._endpointer.set_patience(patience)

    def set_language(self, language: str) -> None:
        """stt.language: the turn already open keeps the language it started in; a burst
        over the bot is judged by the new language's backchannels from now."""
        self._language = language
        self._floor.language = language

    def feed(
        self,
        block: npt.NDArray[np.generic],
        sample_rate: int,
        t_ms: int,
        bot_speaking: bool,
    ) -> list[ListenerEvent]:
        """One capture block (mono, float or int16, any rate) captured at ``t_ms``."""
        captured = self._echo.capture(block, sample_rate)
        if self.on_cleaned is not None:
            echo_free = self._doubletalk.echo_free
            self.on_cleaned(captured.raw if echo_free else captured.cleaned, t_ms)
        if len(self._pending) == 0:
            self._pending_t = t_ms
        samples = np.concatenate([self._pending, captured.cleaned])
        raw = np.concatenate([self._pending_raw, captured.raw])
        level = np.concatenate([self._pending_level, captured.bot_level])
        events: list[ListenerEvent] = []
        whole = len(samples) // _FRAME * _FRAME
        for start in range(0, whole, _FRAME):
            cleaned, heard = samples[start : start + _FRAME], raw[start : start + _FRAME]
            cleaned_voiced = self._vad.is_speech(as_int16(cleaned))
            raw_voiced = (
                self._raw_vad.is_speech(as_int16(heard)) if self._echo.enabled else cleaned_voiced
            )
            # Decided before this frame teaches the detector: a caller's voice is never
            # taken for echo that ends the echo-free path.
            echo_free = self._doubletalk.echo_free
            bot_level = float(level[start : start + _FRAME].max())
            over = bot_speaking and self._over_echo(cleaned_voiced, raw_voiced, bot_level)
            frame, voiced = (heard, raw_voiced) if echo_free else (cleaned, cleaned_voiced)
            events += self._on_frame(
                frame, voiced, over, self._pending_t, bot_speaking, echo_free=echo_free
            )
            self._pending_t += FRAME_MS
        self._pending = samples[whole:]
        self._pending_raw = raw[whole:]
        self._pending_level = level[whole:]
        # A transcript may have come in since the last whole frame.
        self._now = max(self._now, t_ms + len(block) * 1000 // sample_rate)
        return events + self._advance()

    def poll(self, now_ms: int) -> list[ListenerEvent]:
        """A transcription or the turn model finished between blocks (the host is told by
        the hooks' futures): take its result at ``now_ms``, not at the next block."""
        self._now = max(self._now, now_ms)
        return self._advance()

    def _over_echo(self, cleaned_voiced: bool, raw_voiced: bool, bot_level: float) -> bool:
        """Whether the raw microphone holds a voice louder than the bot's echo can be (the
        raw VAD has just heard this frame: the bot's level is 0 with the canceller off)."""
        if bot_level < BOT_SILENT_RMS:
            return False
        return self._doubletalk.feed(self._raw_vad.level, bot_level, raw_voiced, cleaned_voiced)

    def _on_frame(
        self,
        frame: Float32,
        voiced: bool,
        over_echo: bool,
        t: int,
        bot_speaking: bool,
        *,
        echo_free: bool,
    ) -> list[ListenerEvent]:
        self._preroll.append(frame)
        self._now = max(self._now, t + FRAME_MS)
        if not bot_speaking:
            self._barged = False
        events: list[ListenerEvent] = []
        before = self._turn
        for ev in self._endpointer.feed(voiced, t):
            events += self._on_endpoint(ev, bot_holds_floor=bot_speaking and not self._barged)
        turn = self._turn
        if turn is not None and turn is before:  # a new turn's pre-roll holds this frame already
            turn.audio.append(frame)
        if self._burst is not None:
            self._burst.append(frame)
        floor_events = self._floor.feed(voiced or over_echo, t, bot_speaking, echo_free=echo_free)
        for floor_event in floor_events:
            events += self._on_floor(floor_event)
        if self._floor.take_request() and self._burst is not None:
            read = self._read_brief if self._floor.brief else self._transcribe
            self._judging = read(np.concatenate(self._burst), self._language)
            self._judging_asked, self._judging_brief = self._now, self._floor.brief
            if not self._floor.paused:
                self._burst = None  # a late read, the bot going on: nothing more is read
        if turn is not None and turn.overlap and self._takes_floor(turn, bot_speaking):
            turn.overlap = False
            events.append(CallerSpeaking(turn.onset))
        return events + self._advance()

    def _on_floor(self, event: FloorEvent) -> list[ListenerEvent]:
        """The floor judge decided something: keep what it needs, and pass it on."""
        out: list[ListenerEvent] = [event]
        if isinstance(event, OverBot):
            # From just before the onset: earlier frames hold the bot's residual echo,
            # which Whisper would read as words.
            frames = (event.t - event.t_onset) // FRAME_MS + BURST_LEAD_FRAMES
            self._burst = list(self._preroll)[-frames:]
            self._judging = None  # a read still out is of an earlier burst
            return out
        self._judging = None
        if self._floor.wants is None:  # else the bot goes on and a late read is still to ask
            self._burst = None
        overlap = self._turn
        if overlap is None and self._closed:
            overlap = self._closed[-1]
        if overlap is None:
            if isinstance(event, BargeIn):
                # The burst's own turn is over (heard as a backchannel already) or never
                # began: no commit will close the caller's side the cut opens, so close it.
                out.append(DroppedEmpty(TurnClose.SILENCE))
            return out
        if not overlap.overlap:
            return out
        if isinstance(event, BotResumes):
            overlap.resumed_bot = True
        elif isinstance(event, BargeIn):
            # The caller's from now, even if the cut stops the bot before the next frame
            # and the voice has gone quiet (a floor word's verdict comes after it ends).
            self._barged = True
            overlap.overlap = False
            out.append(CallerSpeaking(overlap.onset))
        return out

    def _takes_floor(self, turn: _Turn, bot_speaking: bool) -> bool:
        # A paused overlap is a finished backchannel unless the caller speaks again (a
        # barge-in hands its overlap to the caller at once, in _on_floor).
        return not bot_speaking and not turn.paused

    def _on_endpoint(self, ev: EndpointEvent, *, bot_holds_floor: bool) -> list[ListenerEvent]:
        if isinstance(ev, SpeechStarted):
            self._turn = _Turn(ev.t, self._language, bot_holds_floor, list(self._preroll))
            return [] if bot_holds_floor else [CallerSpeaking(ev.t)]
        turn = self._turn
        assert turn is not None, "the endpointer reports pauses and ends only inside a turn"
        if isinstance(ev, PauseStarted):
            turn.paused = True
            self._decided(ev.t, steps.VoicePaused(ev.speech_end))
            turn.paused_frames = len(turn.audio)
            if not turn.overlap:
                audio = np.concatenate(turn.audio)
                fall, rise = final_fall(audio), final_rise(audio)
                self._decided(ev.t, steps.Fall(None if fall is None else round(fall, 2)))
                self._decided(ev.t, steps.Rise(None if rise is None else round(rise, 2)))
                self._endpointer.hint_fall(fall)
                self._endpointer.hint_rise(rise)
        elif isinstance(ev, Resumed):
            turn.paused = False
            turn.epoch += 1
            self._decided(ev.t, steps.VoiceResumed())
        elif isinstance(ev, TurnEnded):
            turn.ended = ev
            self._closed.append(turn)
            self._turn = None
            self._decided(ev.t, steps.TurnClosed(ev.reason, ev.speech_end))
        return []

    def _decided(self, t: int, step: EndpointingStep) -> None:
        if self.on_decision is not None:
            self.on_decision(t, step)

    def _advance(self) -> list[ListenerEvent]:
        """Collect a finished transcription, emit closed turns in order, start the next job.

        Loops while jobs finish at once (a synchronous hook), so results are never a frame late.
        """
        events: list[ListenerEvent] = []
        judging = self._judging
        if judging is not None and judging.done():
            self._judging = None
            read = judging.result()
            self._decided(
                self._now,
                steps.BurstRead(read.text, self._judging_brief, read.unsure, self._judging_asked),
            )
            for floor_event in self._floor.heard(read.text, self._now, sure=not read.unsure):
                events += self._on_floor(floor_event)
        self._take_turn_verdict()
        while True:
            if self._job is not None and self._job[2].done():
                turn, epoch, future = self._job
                self._job = None
                turn.guess = (epoch, future.result())
                if turn.guess[1].mend is not None:
                    self._decided(self._now, steps.Mended(turn.guess[1].mend, turn.guess[1].first))
                guess = turn.guess[1].text.strip()
                shape = text_shape(guess)
                self._decided(self._now, steps.Guess(guess, shape == "finished"))
                if turn is self._turn and turn.paused and turn.has_current_guess():
                    self._endpointer.hint_text(shape, question=asks_question(guess))
                    if (
                        shape == "open"
                        and self._judge_turn is not None
                        and turn_model_hears(turn.language)
                    ):
                        # Only unpunctuated words leave the verdict to the model.
                        heard = np.concatenate(turn.audio[: turn.paused_frames])
                        turn.judged = (epoch, self._judge_turn(heard))
                        self._take_turn_verdict()
                    self._close_now()
            while self._closed and self._closed[0].has_current_guess():
                events += self._finish(self._closed.popleft())
            if self._job is None:
                self._job = self._next_job()
            if self._job is None or not self._job[2].done():
                return events

    def _take_turn_verdict(self) -> None:
        """Hand the turn model's probability for the pause in progress to the endpointer."""
        turn = self._turn
        if turn is None or turn.judged is None or not turn.judged[1].done():
            return
        epoch, future = turn.judged
        turn.judged = None
        if epoch == turn.epoch and turn.paused:
            probability = future.result()
            self._decided(self._now, steps.TurnModel(round(probability, 3)))
            self._endpointer.hint_turn(probability)
            self._close_now()

    def _close_now(self) -> None:
        """A verdict just handed over may close the turn at the silence already heard."""
        for ev in self._endpointer.close_now():
            self._on_endpoint(ev, bot_holds_floor=False)  # only a TurnEnded: no new turn

    def _next_job(self) -> tuple[_Turn, int, Future[Transcript]] | None:
        turn = self._closed[0] if self._closed else self._turn
        if turn is None or turn.has_current_guess():
            return None
        if turn.ended is None and (
            not turn.paused or turn.overlap or not self._endpointer.guess_due
        ):
            return None  # guess only in a pause, and never for speech under the bot
        audio = np.concatenate(turn.audio)
        return turn, turn.epoch, self._transcribe(audio, turn.language)

    def _finish(self, turn: _Turn) -> list[ListenerEvent]:
        assert turn.ended is not None and turn.guess is not None
        text = turn.guess[1].text.strip()
        if turn.overlap:
            backchannel = Backchannel(text, turn.onset, turn.ended.speech_end, turn.resumed_bot)
            return [backchannel] if text else []
        if not text:
            return [DroppedEmpty(turn.ended.reason)]
        ended, mend = turn.ended, turn.guess[1].mend
        return [TurnCommitted(text, ended.reason, ended.speech_end, ended.t, self._now, mend)]
