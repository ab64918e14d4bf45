"""ScriptMic: a microphone a script speaks into, with an optional simulated echo path.

It delivers capture blocks in real time like a device: silence, plus whatever caller lines
were queued with :meth:`speak`, plus — when an :class:`EchoPath` is given — the bot's own
released audio coming back the way a laptop's speaker leaks into its microphone (a delay,
a gain and a short reverberant tail). Everything after it (echo canceller, VAD, endpointing,
barge-in, Whisper) is the real listening path.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from sandbox.audio.mic import BLOCK_MS, OnBlock
from sandbox.audio.resample import StreamResampler, as_float32, as_int16, resample
from sandbox.audio.sinks import Block

RATE = 16000


@dataclass(frozen=True)
class EchoPath:
    """How the speaker leaks into the microphone: delay, gain, reverb tail (RT60-ish)."""

    delay_ms: int = 50
    gain: float = 0.3
    tail_ms: int = 120

    def impulse(self) -> np.ndarray:
        """The path's impulse response at 16 kHz."""
        taps = np.zeros(RATE * (self.delay_ms + self.tail_ms) // 1000 + 1, dtype=np.float32)
        start = RATE * self.delay_ms // 1000
        rng = np.random.default_rng(7)
        tail = np.arange(len(taps) - start, dtype=np.float32)
        decay = np.exp(-6.9 * tail / max(1, RATE * self.tail_ms // 1000))
        taps[start:] = (
            self.gain
            * 0.25
            * decay
            * rng.standard_normal(len(tail))
            / np.sqrt(max(1, len(tail) // 64))
        )
        taps[start] = self.gain
        return taps


class ScriptMic:
    """A MicSource fed by a script (and, optionally, by the bot's own echo)."""

    def __init__(
        self, echo: EchoPath | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._queue: deque[np.ndarray] = deque()
        self._halt = threading.Event()
        self._thread: threading.Thread | None = None
        self._echo_ir = echo.impulse() if echo is not None else None
        self._echo_in: np.ndarray = np.zeros(0, dtype=np.float32)  # released audio at 16 kHz
        self._echo_state: np.ndarray = np.zeros(0, dtype=np.float32)
        self._resampler: StreamResampler | None = None
        self.delivered_ms = 0  # how much capture audio has gone out
        self._line_ends: deque[tuple[int, threading.Event]] = deque()
        self._queued_ms = 0

    # -------------------------------------------------------------- feeding

    def speak(self, samples: Block, rate: int) -> threading.Event:
        """Queue a caller line; the event is set once all of it has been delivered."""
        line = as_float32(resample(as_float32(samples), rate, RATE))
        done = threading.Event()
        with self._lock:
            start = max(self._queued_ms, self.delivered_ms)
            self._queued_ms = start + len(line) * 1000 // RATE
            self._queue.append(line)
            self._line_ends.append((self._queued_ms, done))
        return done

    def bot_released(self, block: Block, rate: int) -> None:
        """What playout just released (the echo path's input); call from playout's thread."""
        if self._echo_ir is None:
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

    def _next_block(self, size: int) -> np.ndarray:
        out = np.zeros(size, dtype=np.float32)
        with self._lock:
            filled = 0
            while self._queue and filled < size:
                line = self._queue[0]
                take = min(size - filled, len(line))
                out[filled : filled + take] = line[:take]
                filled += take
                if take == len(line):
                    self._queue.popleft()
                else:
                    self._queue[0] = line[take:]
            echo_in, self._echo_in = self._echo_in[:size], self._echo_in[size:]
            self.delivered_ms += BLOCK_MS
            while self._line_ends and self._line_ends[0][0] <= self.delivered_ms:
                self._line_ends.popleft()[1].set()
        if self._echo_ir is not None:
            out += self._echo(np.pad(echo_in, (0, size - len(echo_in))))
        return np.clip(out, -1.0, 1.0)

    def _echo(self, block: np.ndarray) -> np.ndarray:
        """Overlap-add convolution of the released audio with the echo path."""
        assert self._echo_ir is not None
        full = np.convolve(block, self._echo_ir)
        if len(self._echo_state):
            full[: len(self._echo_state)] += self._echo_state
        self._echo_state = full[len(block) :]
        return full[: len(block)].astype(np.float32)
