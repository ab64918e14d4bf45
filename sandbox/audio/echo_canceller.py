"""Removing the bot's own voice from the microphone: WebRTC AEC3 via livekit.

The canceller runs at 16 kHz, the rate the VAD and Whisper listen at, so capture comes out
ready for them whatever rate the devices run at. Noise suppression is on by default: in
measured double talk it is what keeps the residual echo from reading as voiced to the VAD.
The high-pass filter removes DC and rumble. Automatic gain control stays off: it would pump
the level the barge-in detector and Whisper see.

Playout calls :meth:`EchoCanceller.feed_reference` with each block as it releases it to the
speaker (not ahead of time: AEC3 expects the far end roughly in step with capture); capture
calls :meth:`EchoCanceller.process`. The two may be called from different threads. AEC3
estimates the delay between them itself (measured converging at 30-400 ms), so no delay hint
is passed. When playout stops feeding (the bot is silent, or was cut) the canceller feeds
silence in its place once the reference trails capture by 100 ms: AEC3 starved of far-end
frames goes on suppressing as if the last echo continued (measured: the caller's words right
after a barge-in came through ~3 dB down instead of intact).
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from sandbox.audio.resample import Float32, StreamResampler, as_float32, as_int16
from sandbox.errors import UserError

#: The rate cleaned audio comes out at.
PROCESS_RATE = 16000
_FRAME = PROCESS_RATE // 100  # AEC3 takes exactly 10 ms per call
#: How far (in 10 ms frames) the reference may trail capture before the speaker is taken to be
#: silent and silence is fed in its place.
_REFERENCE_SLACK = 10


_SILENCE: Float32 = np.zeros(_FRAME, dtype=np.float32)
#: How far back the bot's level is looked at for a capture frame: the longest echo delay.
ECHO_WINDOW_FRAMES = 30


@dataclass(frozen=True)
class Captured:
    """One capture block at 16 kHz: cleaned, as it came in (raw), and per sample the bot's
    loudest level (RMS) over the :data:`ECHO_WINDOW_FRAMES` before it (0 with AEC off)."""

    cleaned: Float32
    raw: Float32
    bot_level: Float32


class _Stream:
    """One direction's resampler to 16 kHz plus the samples short of a 10 ms frame."""

    def __init__(self) -> None:
        self._resampler: StreamResampler | None = None
        self._pending: Float32 = np.zeros(0, dtype=np.float32)

    def resample(self, block: npt.NDArray[np.generic], sample_rate: int) -> Float32:
        if self._resampler is None or self._resampler.src_rate != sample_rate:
            self._resampler = StreamResampler(sample_rate, PROCESS_RATE)
        return self._resampler.push(block)

    def frames(self, block: npt.NDArray[np.generic], sample_rate: int) -> list[Float32]:
        samples = np.concatenate([self._pending, self.resample(block, sample_rate)])
        whole = len(samples) // _FRAME * _FRAME
        self._pending = samples[whole:]
        return list(samples[:whole].reshape(-1, _FRAME))


class EchoCanceller:
    """Cleans capture audio of what playout released; ``enabled=False`` only resamples."""

    sample_rate = PROCESS_RATE

    def __init__(
        self,
        *,
        enabled: bool = True,
        noise_suppression: bool = True,
        high_pass: bool = True,
    ) -> None:
        self.enabled = enabled
        self._capture = _Stream()
        self._reference = _Stream()
        self._lock = threading.Lock()  # playout and capture may run on different threads
        self._apm: Any = None
        self._lead = 0  # capture frames processed minus reference frames fed
        self._levels: deque[float] = deque([0.0], maxlen=ECHO_WINDOW_FRAMES)
        if enabled:
            self._rtc = _load_livekit()
            self._apm = self._rtc.AudioProcessingModule(
                echo_cancellation=True,
                noise_suppression=noise_suppression,
                high_pass_filter=high_pass,
            )

    def feed_reference(self, block: npt.NDArray[np.generic], sample_rate: int) -> None:
        """What playout just released to the speaker (mono, float or int16, any rate)."""
        if not self.enabled:
            return
        with self._lock:
            for frame in self._reference.frames(block, sample_rate):
                self._apm.process_reverse_stream(self._audio_frame(frame))
                self._levels.append(float(np.sqrt(np.mean(np.square(frame)))))
                self._lead -= 1

    def process(self, block: npt.NDArray[np.generic], sample_rate: int) -> Float32:
        """Clean one capture block (mono, any rate); returns float32 at :attr:`sample_rate`.

        Output comes in whole 10 ms frames, so it can lag the input by up to 10 ms; with the
        canceller disabled the block is only resampled.
        """
        return self.capture(block, sample_rate).cleaned

    def capture(self, block: npt.NDArray[np.generic], sample_rate: int) -> Captured:
        """:meth:`process`, keeping the raw audio and the bot's level beside the cleaned."""
        if not self.enabled:
            same = self._capture.resample(block, sample_rate)
            return Captured(same, same, np.zeros(len(same), dtype=np.float32))
        cleaned: list[Float32] = []
        raw: list[Float32] = []
        levels: list[Float32] = []
        with self._lock:
            for frame in self._capture.frames(block, sample_rate):
                if self._lead > _REFERENCE_SLACK:
                    # Playout is not feeding us: the speaker is silent, so say so.
                    self._apm.process_reverse_stream(self._audio_frame(_SILENCE))
                    self._levels.append(0.0)
                    self._lead -= 1
                self._lead += 1
                audio = self._audio_frame(frame)
                self._apm.process_stream(audio)
                cleaned.append(as_float32(np.frombuffer(audio.data, dtype=np.int16)))
                raw.append(frame)
                levels.append(np.full(_FRAME, max(self._levels), dtype=np.float32))
        if not cleaned:
            empty = np.zeros(0, dtype=np.float32)
            return Captured(empty, empty, empty)
        return Captured(np.concatenate(cleaned), np.concatenate(raw), np.concatenate(levels))

    def _audio_frame(self, frame: Float32) -> Any:
        data = bytearray(as_int16(frame).tobytes())
        return self._rtc.AudioFrame(data, PROCESS_RATE, 1, _FRAME)


def _load_livekit() -> Any:
    try:
        from livekit import rtc
    except (ImportError, OSError) as exc:
        raise UserError(
            f"Echo cancellation needs the livekit package, which did not load here ({exc}). "
            "Use headphones and turn echo cancellation off."
        ) from None
    return rtc
