"""Timing a voice app from outside its process, the way its caller meets it.

A :class:`DeviceProbe` plays the caller's voice into the virtual microphone's feed
(``micfeed``) and records the virtual speaker's monitor (``spk.monitor``) through two
PortAudio streams of this process. Each stream's callbacks are stamped with
``time.monotonic()``; a sample's time is the stream's offset plus its index over the rate,
with the offset taken from the least delayed callback (callbacks jitter by tens of
milliseconds; the sample clock does not). What the two streams' own buffering adds is
measured once by :func:`loop_latency_s` (a click played into the speaker and recorded from
its monitor) and taken off every figure, so a time is when the sample entered the
microphone or left the speaker.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sandbox.audio.line_queue import take_into
from sandbox.audio.resample import as_float32, as_int16, resample
from sandbox.caller.espeak_voice import speak
from sandbox.errors import UserError
from sandbox_bench import pulse

#: The probe's sample rate (the caller lines' own).
RATE = 16000
#: Samples per callback (20 ms: the timing comes from sample counts, not callbacks).
BLOCK = 320
#: A sample louder than this is voice or bot audio: 0.5 % of full scale, the peer's threshold.
LEVEL = int(0.005 * 32768)
#: Callbacks skipped before fitting a stream's offset (start-up bursts).
SETTLE_CALLBACKS = 10
#: Callbacks within this many seconds of a moment fit the offset used to time it.
NEAR_S = 3.0
#: The speaker must be this quiet before a caller's line (a reply's sentence gaps are shorter).
QUIET_S = 1.5


class SampleClock:
    """A stream's sample clock: ``offset + index / RATE`` on the monotonic clock.

    A stream that drops samples under load (an overrun, an underrun) shifts its offset for
    good from then on: :meth:`at_near` and :meth:`index_near` fit it over the callbacks of
    the few seconds around the moment asked about instead of the whole run.
    """

    def __init__(self) -> None:
        self.callbacks = 0
        self.offset = float("inf")
        self._stamps: list[tuple[int, float]] = []

    def stamp(self, index: int, now: float) -> None:
        """A callback at sample ``index`` (for output: its first; for input: one past its
        last) happened at ``now``."""
        self.callbacks += 1
        if self.callbacks > SETTLE_CALLBACKS:
            self.offset = min(self.offset, now - index / RATE)
            self._stamps.append((index, now))

    def at(self, index: int) -> float:
        """When sample ``index`` was handed over (output) or had arrived (input)."""
        return self.offset + index / RATE

    def _offset_near(self, near: Callable[[int, float], bool]) -> float:
        offsets = [now - index / RATE for index, now in self._stamps if near(index, now)]
        return min(offsets, default=self.offset)

    def at_near(self, index: int) -> float:
        """:meth:`at`, with the offset fitted within :data:`NEAR_S` of sample ``index``."""
        span = NEAR_S * RATE
        return self._offset_near(lambda i, _now: abs(i - index) <= span) + index / RATE

    def index_near(self, t: float) -> int:
        """The sample handed over (output) or arrived (input) at ``t``, the offset fitted
        within :data:`NEAR_S` of it."""
        offset = self._offset_near(lambda _i, now: abs(now - t) <= NEAR_S)
        return round((t - offset) * RATE)


def _open(
    kind: str, sink: str, source: str, callback: Callable[..., None]
) -> Any:  # sounddevice's stream types are untyped
    import sounddevice as sd

    saved = {k: os.environ.get(k) for k in ("PULSE_SINK", "PULSE_SOURCE")}
    os.environ.update({"PULSE_SINK": sink, "PULSE_SOURCE": source})
    try:  # libpulse reads the routing when the stream connects
        stream_type = sd.OutputStream if kind == "out" else sd.InputStream
        stream = stream_type(
            samplerate=RATE,
            channels=1,
            dtype="int16",
            blocksize=BLOCK,
            latency="low",
            callback=callback,
        )
        stream.start()
        return stream
    except sd.PortAudioError as exc:
        raise UserError(f"cannot open the virtual devices for timing: {exc}") from None
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class DeviceProbe:
    """Plays into ``sink`` and records ``source``; by default the virtual microphone's feed
    and the virtual speaker's monitor. Use as a context manager."""

    def __init__(
        self,
        sink: str = pulse.MIC_FEED,
        source: str = f"{pulse.SPEAKER}.monitor",
        *,
        seconds: float = 60.0,
    ) -> None:
        self._sink, self._source = sink, source
        self._lock = threading.Lock()
        self._queue: deque[NDArray[np.int16]] = deque()
        self._written = 0  # output samples handed over
        self._recorded = np.zeros(int(seconds * RATE), np.int16)
        self._received = 0  # input samples recorded
        self._sounded = 0  # one past the last recorded sample above LEVEL
        self.out_clock = SampleClock()
        self.in_clock = SampleClock()
        self._streams: list[Any] = []

    def __enter__(self) -> DeviceProbe:
        self._streams = [
            _open("in", self._sink, self._source, self._on_input),
            _open("out", self._sink, self._source, self._on_output),
        ]
        return self

    def __exit__(self, *exc: object) -> None:
        for stream in self._streams:
            stream.stop()
            stream.close()
        self._streams = []

    # ------------------------------------------------------------- callbacks

    def _on_output(self, outdata: NDArray[np.int16], frames: int, _t: Any, _s: Any) -> None:
        with self._lock:
            self.out_clock.stamp(self._written, time.monotonic())
            block = outdata[:, 0]
            block[:] = 0
            take_into(self._queue, block)
            self._written += frames

    def _on_input(self, indata: NDArray[np.int16], frames: int, _t: Any, _s: Any) -> None:
        with self._lock:
            end = self._received + frames
            if end > len(self._recorded):  # grow: a long session
                self._recorded = np.concatenate([self._recorded, np.zeros_like(self._recorded)])
            self._recorded[self._received : end] = indata[:, 0]
            loud = np.flatnonzero(np.abs(indata[:, 0].astype(np.int32)) > LEVEL)
            if len(loud):
                self._sounded = self._received + int(loud[-1]) + 1
            self._received = end
            self.in_clock.stamp(end, time.monotonic())

    # ----------------------------------------------------------------- using

    def play(self, samples: NDArray[np.int16]) -> int:
        """Queue ``samples`` (16 kHz) for the microphone; returns the output index of the
        first one."""
        with self._lock:
            start = self._written + sum(len(q) for q in self._queue)
            self._queue.append(samples.copy())
            return start

    @property
    def written(self) -> int:
        """Output samples handed over so far."""
        with self._lock:
            return self._written

    @property
    def received(self) -> int:
        """Input samples recorded so far."""
        with self._lock:
            return self._received

    def first_sound(self, start: int, end: int | None = None) -> int | None:
        """The input index of the first sample from ``start`` (to ``end``) above :data:`LEVEL`."""
        with self._lock:
            chunk = self._recorded[start : self._received if end is None else end]
        loud = np.flatnonzero(np.abs(chunk.astype(np.int32)) > LEVEL)
        return start + int(loud[0]) if len(loud) else None

    def quiet_since(self) -> float:
        """Seconds of silence at the end of the recording so far."""
        with self._lock:
            return (self._received - self._sounded) / RATE

    def recorded(self, start: int, end: int) -> NDArray[np.int16]:
        """A copy of the recording from input index ``start`` to ``end`` (as far as it goes)."""
        with self._lock:
            return self._recorded[max(0, start) : min(end, self._received)].copy()


async def wait_quiet(probe: DeviceProbe, timeout_s: float) -> None:
    """Until the speaker has been quiet for :data:`QUIET_S`."""
    deadline = time.monotonic() + timeout_s
    while probe.quiet_since() < QUIET_S:
        if time.monotonic() > deadline:
            raise UserError("the virtual speaker never went quiet between turns")
        await asyncio.sleep(0.1)


def at_probe_rate(samples: NDArray[np.generic], rate: int) -> tuple[NDArray[np.int16], int, int]:
    """``samples`` (int16 or float32 at ``rate``) as int16 at the probe's rate, with the index
    of the first sample above :data:`LEVEL` and one past the last: where the voice begins
    and ends."""
    line = as_int16(resample(as_float32(samples), rate, RATE))
    loud = np.flatnonzero(np.abs(line.astype(np.int32)) > LEVEL)
    if not len(loud):
        raise UserError("a caller line came out silent")
    return line, int(loud[0]), int(loud[-1]) + 1


def spoken_line(text: str, voice: str, wpm: int) -> tuple[NDArray[np.int16], int, int]:
    """``text`` by espeak-ng at the probe's rate, and where its voice begins and ends (see
    :func:`at_probe_rate`)."""
    samples, rate = speak(text, voice=voice, wpm=wpm)
    return at_probe_rate(samples, rate)


def loop_latency_s(trials: int = 3, attempts: int = 8) -> float:
    """What the probe's own two streams add: a click played into the speaker and recorded
    from its monitor, median of ``trials`` (each with fresh streams, as a session opens; a
    click a just-opened stream loses is tried again, up to ``attempts`` in all)."""
    loops: list[float] = []
    click = np.full(BLOCK // 2, 16000, np.int16)
    for _ in range(attempts):
        with DeviceProbe(pulse.SPEAKER, f"{pulse.SPEAKER}.monitor", seconds=5) as probe:
            time.sleep(0.5)  # the offsets settle
            listen_from = probe.received
            at = probe.play(click)
            deadline = time.monotonic() + 2
            found = None
            while found is None and time.monotonic() < deadline:
                time.sleep(0.05)
                found = probe.first_sound(listen_from)
            if found is not None:
                loops.append(probe.in_clock.at(found) - probe.out_clock.at(at))
        if len(loops) == trials:
            return statistics.median(loops)
    raise UserError(
        "the virtual speaker does not record what it plays (pactl list short sinks should "
        "list spk; tools/setup-test-env installs PulseAudio)"
    )
