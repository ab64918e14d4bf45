"""SpeechOut: the call core's playout, for real — Piper into the playout clock.

It implements the core's playout port (open, speak, close, cut, pause, resume), synthesizes
each unit's text clause by clause on one worker thread (Piper uses the cores it is given; one
synthesis at a time keeps units in order), queues the clips on the playout clock, and hands
the core what the clock released: a word when it counts as heard, a unit when all of its
audio is out.

Clock callbacks arrive on the audio thread; they are queued here and ``wake`` is called so
the host's loop drains them with :meth:`advance`. Nothing here blocks the audio thread. A
unit whose voice cannot be loaded is reported unspoken, with the reason, and the call goes on.
So does a unit with a clause that cannot be said (:class:`ClauseUnsaid`): it stops there,
and the units after it play. Nothing one clause does, however it fails, ends the synthesis
thread: every later unit of the call would be silent.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from sandbox.audio.clauses import take_ready
from sandbox.audio.clip_rate import at_rate
from sandbox.audio.playout import PlayoutClock
from sandbox.audio.sinks import Block
from sandbox.audio.tts import Trouble
from sandbox.audio.voice_engine import VoiceEngine
from sandbox.call.played import (
    AudioMark,
    ClauseUnsaid,
    Played,
    UnitPlayed,
    UnitUnspoken,
    WordPlayed,
)
from sandbox.call.waterfall import FIRST_CLAUSE, FIRST_SAMPLE, FIRST_SPEAKER
from sandbox.errors import UserError

SynthesizerFor = Callable[[int], VoiceEngine]
#: How much of an unsaid clause its report quotes.
QUOTE_CHARS = 80

log = logging.getLogger(__name__)


@dataclass
class _Pending:
    """Text of a unit not yet handed to the synthesizer."""

    voice: int
    language: int
    text: str = ""
    sent_any: bool = False


@dataclass(frozen=True)
class _Job:
    generation: int
    speech_id: int
    voice: int
    language: int
    text: str | None  # None: the unit is closed, no more text


@dataclass
class Timing:
    """When each unit's text arrived and its first audio went out (clock seconds)."""

    first_text: dict[int, float] = field(default_factory=dict)
    first_audio: dict[int, float] = field(default_factory=dict)


class SpeechOut:
    """The real playout: the audio engine's :class:`~sandbox.call.ports.Playout`."""

    def __init__(
        self,
        synthesizer_for: SynthesizerFor,
        make_clock: Callable[..., PlayoutClock],
        *,
        on_release: Callable[[Block], None] | None = None,
        on_idle: Callable[[], object] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``make_clock(on_word=, on_unit_done=, on_release=, on_sound=)`` builds the
        playout clock.
        ``on_idle`` is called on the synthesis thread once a unit's text is all synthesized
        and no more text waits: the turn's heavy work is done, its audio still playing."""
        self._synthesizer_for = synthesizer_for
        self._on_idle = on_idle
        self._now = clock
        self._on_release_hook = on_release
        self._events: deque[Played] = deque()
        # Lock order: _cut_lock, then the clock's lock, then _lock. Clock callbacks hold the
        # clock's lock and take only _lock; nothing holding _lock calls into the clock.
        self._cut_lock = threading.Lock()
        self._lock = threading.Lock()
        self._pending: dict[int, _Pending] = {}
        self._in_play: list[int] = []  # opened and not done or cut, oldest first
        self._awaiting_audio: deque[int] = deque()
        self._generation = 0
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._unspoken: set[int] = set()  # units stopped: their voice or a clause failed
        self.timing = Timing()
        self._wake: Callable[[], None] = lambda: None
        #: The call's clock in ms, for the waterfall's marks (:class:`AudioMark`); started
        #: without one, none are made.
        self._now_ms: Callable[[], int] | None = None
        #: Also told of every word as it is released (the audio thread; return at once).
        self.word_hooks: list[Callable[[WordPlayed], None]] = []
        self.clock = make_clock(
            on_word=self._word,
            on_unit_done=self._unit_done,
            on_release=self._released,
            on_sound=self._sounded,
        )
        self._worker = threading.Thread(target=self._synthesize, name="tts", daemon=True)

    # ------------------------------------------------------------- lifecycle

    def start(
        self, wake: Callable[[], None] | None = None, now_ms: Callable[[], int] | None = None
    ) -> None:
        """Start synthesizing and releasing audio for a call: ``wake`` is told (from the audio
        thread) when something was released, ``now_ms`` is the call's clock for the
        waterfall's marks."""
        if wake is not None:
            self._wake = wake
        self._now_ms = now_ms
        self._worker.start()
        self.clock.start()

    def stop(self) -> None:
        """Stop the worker and the clock (what the device holds plays out)."""
        self._jobs.put(None)
        self._worker.join(timeout=5)
        self.clock.stop()

    @property
    def synthesizing(self) -> bool:
        """The synthesis thread is running (started and not stopped)."""
        return self._worker.is_alive()

    @property
    def speaking(self) -> bool:
        """The bot holds the floor: some unit is open, queued or playing (gaps included)."""
        with self._lock:
            return bool(self._in_play)

    # ------------------------------------------------------------ the port

    def open_unit(self, speech_id: int, voice: int, language: int, now: int) -> None:
        """A unit opened: its clips queue behind every older unit's."""
        with self._cut_lock:
            with self._lock:
                self._pending[speech_id] = _Pending(voice, language)
                self._in_play.append(speech_id)
            self.clock.open_unit(speech_id)

    def speak(self, speech_id: int, text: str, now: int) -> None:
        """More text: every clause it completes goes to the synthesizer."""
        with self._lock:
            pending = self._pending.get(speech_id)
            if pending is None:
                return
            self.timing.first_text.setdefault(speech_id, self._now())
            pending.text += text
            pieces, pending.text = take_ready(pending.text, first=not pending.sent_any)
            pending.sent_any = pending.sent_any or bool(pieces)
            jobs = [
                _Job(self._generation, speech_id, pending.voice, pending.language, p)
                for p in pieces
            ]
        for job in jobs:
            self._jobs.put(job)

    def close_unit(self, speech_id: int, now: int) -> None:
        """No more text: synthesize what is left, then end the unit on the clock."""
        with self._lock:
            pending = self._pending.pop(speech_id, None)
            if pending is None:
                return
            jobs = [_Job(self._generation, speech_id, pending.voice, pending.language, None)]
            if pending.text.strip():
                jobs.insert(
                    0,
                    _Job(
                        self._generation, speech_id, pending.voice, pending.language, pending.text
                    ),
                )
        for job in jobs:
            self._jobs.put(job)

    def next_deadline(self) -> int | None:
        """Never: the audio thread wakes the host when something played."""
        return None

    def advance(self, now: int) -> list[Played]:
        """What the clock released since the last call."""
        with self._lock:
            out = list(self._events)
            self._events.clear()
        return out

    def cut(self, now: int = 0) -> None:
        """Silence now: drop every queued clip and every job not yet synthesized."""
        with self._cut_lock:
            with self._lock:
                self._generation += 1
                self._pending.clear()
                self._in_play.clear()
                self._awaiting_audio.clear()
            self.clock.cut()

    def pause(self, now: int = 0) -> None:
        """Hold playout where it is while the caller is judged (synthesis goes on)."""
        self.clock.pause()

    def resume(self, now: int = 0) -> None:
        """Go on from where the pause began."""
        self.clock.resume()

    # ------------------------------------------------------------- synthesis

    def _synthesize(self) -> None:
        while (job := self._jobs.get()) is not None:
            try:
                self._run(job)
            except Exception as exc:  # a bug met by one clause: that unit stops, not the call
                log.exception("speaking unit %s failed", job.speech_id)
                self._unsaid(job.speech_id, job.text or "", f"{type(exc).__name__}: {exc}")

    def _run(self, job: _Job) -> None:
        if job.generation != self._generation:
            return  # cut before it was spoken
        if job.text is None:
            with self._cut_lock:
                if job.generation == self._generation:
                    self.clock.end_unit(job.speech_id)
            if self._on_idle is not None and self._jobs.empty():
                self._on_idle()
            return
        if job.speech_id in self._unspoken:
            return  # its voice or an earlier clause failed: the rest is not spoken either
        try:
            synthesizer = self._synthesizer_for(job.voice)
        except UserError as exc:  # a voice whose model will not load (says why)
            self._unspoken.add(job.speech_id)
            with self._lock:
                self._events.append(UnitUnspoken(job.speech_id, str(exc)))
            self._wake()
            return

        def trouble(found: Trouble) -> None:
            if found.repaired:
                log.info("unit %s: %s", job.speech_id, found.describe())
            else:
                self._unsaid(job.speech_id, found.text, found.reason)

        for made in synthesizer.synthesize(job.text, trouble, language=job.language):
            clip = at_rate(made, self.clock.sample_rate)
            with self._cut_lock:
                if job.generation != self._generation:
                    break  # a clip of a cut unit must never start a new one
                with self._lock:
                    first = job.speech_id not in self.timing.first_audio
                    if first and job.speech_id not in self._awaiting_audio:
                        self._awaiting_audio.append(job.speech_id)
                        self._mark(job.speech_id, FIRST_CLAUSE)
                self.clock.enqueue(job.speech_id, clip)

    def _unsaid(self, speech_id: int, text: str, reason: str) -> None:
        """Stop a unit at a clause that cannot be said: the core hears of it (and tells the
        brain); the unit's later clauses are dropped and its queued audio plays out."""
        self._unspoken.add(speech_id)
        with self._lock:
            self._events.append(ClauseUnsaid(speech_id, text[:QUOTE_CHARS], reason))
        self._wake()

    # ------------------------------------------------------ clock callbacks

    def _word(self, speech_id: int, index: int, word: str, sample: int) -> None:
        played = WordPlayed(speech_id, word, index, sample)
        with self._lock:
            self._events.append(played)
        for hook in self.word_hooks:
            hook(played)
        self._wake()

    def _unit_done(self, speech_id: int) -> None:
        with self._lock:
            if speech_id in self._in_play:
                self._in_play.remove(speech_id)
            self._events.append(UnitPlayed(speech_id))
        self._wake()

    def _sounded(self) -> None:
        """A block with sound released: the first for a unit awaiting its audio is its first
        sample, timed before any phone line (the line's delay is the waterfall's own stage)."""
        if self._awaiting_audio:
            with self._lock:
                if self._awaiting_audio:
                    sid = self._awaiting_audio.popleft()
                    self.timing.first_audio.setdefault(sid, self._now())
                    self._mark(sid, FIRST_SAMPLE)
                    delay = self.clock.output_delay_ms()
                    if delay is not None:
                        self._mark(sid, FIRST_SPEAKER, delay)

    def _released(self, block: Block) -> None:
        if self._on_release_hook is not None:
            self._on_release_hook(block)

    def _mark(self, speech_id: int, stage: str, later_ms: int = 0) -> None:
        """A waterfall moment of a unit, now (plus ``later_ms``), for the core; under
        ``_lock``. The word or clip that comes with it wakes the host."""
        if self._now_ms is not None:
            self._events.append(AudioMark(speech_id, stage, self._now_ms() + later_ms))
