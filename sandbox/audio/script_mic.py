"""ScriptMic: a microphone a script speaks into, with an optional simulated echo path.

It delivers capture blocks in real time like a device: silence, plus whatever caller lines
were queued with :meth:`speak`, plus — when a :class:`LaptopEchoPath` is given — the bot's
own audio coming back the way a laptop's speaker leaks into its microphone.
Everything after it (echo canceller, VAD, endpointing, barge-in, Whisper) is the real
listening path.

Its :meth:`ScriptMic.speaker` is the matching speaker on the same clock, as on a full-duplex
sound card: each capture tick first pulls the speaker's audio for that tick from playout,
then hears it back through the echo path. One clock keeps the echo's delay fixed, as a real
device's is; a speaker paced by its own thread drifts against the mic under CPU load, and
the echo canceller then has to find the delay again mid-sentence.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

import numpy as np

from sandbox.audio.echo_path import LaptopEchoPath
from sandbox.audio.line_queue import take_into
from sandbox.audio.mic import BLOCK_MS, OnBlock
from sandbox.audio.resample import StreamResampler, as_float32, as_int16, resample
from sandbox.audio.sinks import Block, ClockedSink, Pull

RATE = 16000


class ScriptMic:
    """A MicSource fed by a script (and, optionally, by the bot's own echo)."""

    RATE = RATE

    def __init__(
        self, echo: LaptopEchoPath | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        """``echo``: a path built at this mic's rate (``LaptopEchoPath(ScriptMic.RATE)``)."""
        self._clock = clock
        self._lock = threading.Lock()
        self._queue: deque[np.ndarray] = deque()
        self._halt = threading.Event()
        self._thread: threading.Thread | None = None
        self._echo = echo
        self._echo_in: np.ndarray = np.zeros(0, dtype=np.float32)  # released audio at 16 kHz
        self._resampler: StreamResampler | None = None
        self.delivered_ms = 0  # how much capture audio has gone out
        #: Capture time that carried the bot's echo: proof the echo path is being fed.
        self.echoed_ms = 0
        self._line_ends: deque[tuple[int, threading.Event]] = deque()
        self._queued_ms = 0
        self._speaker: _DuplexSpeaker | None = None
        #: A line waiting for the speaker's first sound: (the line, how long after, its event).
        self._cued: tuple[np.ndarray, int, threading.Event] | None = None

    def speaker(self, rate: int) -> ClockedSink:
        """The speaker on this mic's clock (what it plays is what the echo path hears)."""
        self._speaker = _DuplexSpeaker(rate)
        return self._speaker

    # -------------------------------------------------------------- feeding

    def speak(
        self, samples: Block, rate: int, *, after_sound_ms: int | None = None
    ) -> threading.Event:
        """Queue a caller line; the event is set once all of it has been delivered.

        ``after_sound_ms``: the line starts that much capture time after the speaker (see
        :meth:`speaker`) first plays sound, on this mic's own clock, so a caller who cuts in
        at a moment of the bot's speech does so there however late the script's thread runs.
        """
        line = as_float32(resample(as_float32(samples), rate, RATE))
        done = threading.Event()
        with self._lock:
            if after_sound_ms is not None:
                if self._cued is not None:
                    raise ValueError("a line already waits for the speaker's first sound")
                self._cued = (line, after_sound_ms, done)
            else:
                self._queue_line(line, done)
        return done

    def _queue_line(self, line: np.ndarray, done: threading.Event, at_ms: int = 0) -> None:
        """Queue ``line`` to start at capture time ``at_ms`` at the earliest (lock held)."""
        start = max(self._queued_ms, self.delivered_ms)
        if at_ms > start:
            line = np.concatenate([np.zeros((at_ms - start) * RATE // 1000, np.float32), line])
        self._queued_ms = start + len(line) * 1000 // RATE
        self._queue.append(line)
        self._line_ends.append((self._queued_ms, done))

    def _played(self, block: Block, rate: int) -> None:
        """What the speaker just played (the echo path's input)."""
        if self._echo is None:
            return
        if self._resampler is None:
            self._resampler = StreamResampler(rate, RATE)
        more = self._resampler.push(block)
        with self._lock:
            self._echo_in = np.concatenate([self._echo_in, more])

    # -------------------------------------------------------------- running

    def start(self, on_block: OnBlock) -> None:
        """Deliver 20 ms blocks at real-time pace until stopped."""
        size = RATE * BLOCK_MS // 1000
        period = BLOCK_MS / 1000

        def run() -> None:
            origin = self._clock()
            index = 0
            while not self._halt.is_set():
                if self._speaker is not None:
                    for block, rate in self._speaker.tick(BLOCK_MS):
                        self._played(block, rate)
                    self._release_cued(self._speaker)
                on_block(as_int16(self._next_block(size)), RATE)
                index += 1
                self._halt.wait(max(0.0, origin + index * period - self._clock()))

        self._thread = threading.Thread(target=run, name="script-mic", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop delivering."""
        self._halt.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def _release_cued(self, speaker: _DuplexSpeaker) -> None:
        """Queue the line waiting for the speaker's first sound, once it has sounded (called
        after the speaker's tick for the block about to be delivered)."""
        with self._lock:
            if self._cued is None or speaker.first_sound_ms is None:
                return
            (line, after_ms, done), self._cued = self._cued, None
            # The tick just pulled covers the same capture time as the next block delivered.
            sounded = self.delivered_ms + speaker.first_sound_ms - (speaker.ticked_ms - BLOCK_MS)
            self._queue_line(line, done, sounded + after_ms)

    def _next_block(self, size: int) -> np.ndarray:
        out = np.zeros(size, dtype=np.float32)
        with self._lock:
            take_into(self._queue, out)
            echo_in, self._echo_in = self._echo_in[:size], self._echo_in[size:]
            self.delivered_ms += BLOCK_MS
            while self._line_ends and self._line_ends[0][0] <= self.delivered_ms:
                self._line_ends.popleft()[1].set()
        if self._echo is not None:
            out += self._echo.step(np.pad(echo_in, (0, size - len(echo_in))))
            self.echoed_ms += BLOCK_MS if np.any(echo_in) else 0
        return np.clip(out, -1.0, 1.0)


class _DuplexSpeaker:
    """A ClockedSink pulled by its ScriptMic's thread, one capture tick at a time."""

    def __init__(self, rate: int) -> None:
        self._rate = rate
        self._lock = threading.Lock()
        self._pull: Pull | None = None
        self._block_frames = 0
        self._pulled = 0  # frames pulled so far
        #: Capture time covered so far, on the speaker's count (from its first tick).
        self.ticked_ms = 0
        #: When, on the same count, the speaker first played sound (None: not yet).
        self.first_sound_ms: int | None = None

    @property
    def sample_rate(self) -> int:
        """Samples per second."""
        return self._rate

    def start(self, pull: Pull, block_frames: int) -> None:
        """Begin pulling ``block_frames`` at a time on the mic's ticks."""
        with self._lock:
            self._pull, self._block_frames = pull, block_frames

    def close(self) -> None:
        """Stop pulling."""
        with self._lock:
            self._pull = None

    def tick(self, ms: int) -> list[tuple[Block, int]]:
        """Pull whatever the speaker plays in the next ``ms`` of capture time."""
        with self._lock:
            pull, size = self._pull, self._block_frames
        self.ticked_ms += ms
        played: list[tuple[Block, int]] = []
        if pull is None:  # not playing yet: no backlog to catch up on once it starts
            self._pulled = self.ticked_ms * self._rate // 1000
            return played
        while self._pulled * 1000 < self.ticked_ms * self._rate:
            block = pull(size)
            if self.first_sound_ms is None and np.any(block):
                self.first_sound_ms = self._pulled * 1000 // self._rate
            played.append((block, self._rate))
            self._pulled += size
        return played
