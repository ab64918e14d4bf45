"""Sample-rate conversion and sample-format helpers, numpy only.

The listening half runs at 16 kHz (webrtcvad, Whisper, the echo canceller); devices run at
44.1/48 kHz and Piper speaks at 22.05 kHz. :class:`StreamResampler` converts a stream fed in
blocks of any size with a windowed-sinc polyphase filter, so the output does not depend on how
the input was cut into blocks and the added latency is about half a filter (under 3 ms).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

Float32 = npt.NDArray[np.float32]
Int16 = npt.NDArray[np.int16]

#: Zero crossings of the sinc on each side; 16 gives >70 dB alias rejection with Kaiser(8.6).
_ZERO_CROSSINGS = 16
_KAISER_BETA = 8.6
#: Passband edge as a fraction of the lower Nyquist: speech above 7.3 kHz at 16 kHz is noise.
_ROLLOFF = 0.92


def as_float32(block: npt.NDArray[np.generic]) -> Float32:
    """Mono samples as float32 in [-1, 1]; int16 is scaled, float is passed through."""
    array = np.asarray(block)
    if array.ndim != 1:
        raise ValueError(f"expected mono samples (1-D), got shape {array.shape}")
    if array.dtype == np.int16:
        return array.astype(np.float32) / 32768.0
    return array.astype(np.float32, copy=False)


def as_int16(block: Float32) -> Int16:
    """Float samples in [-1, 1] as int16, clipping anything outside."""
    return (np.clip(block, -1.0, 32767 / 32768) * 32768.0).astype(np.int16)


class StreamResampler:
    """Converts one mono stream from ``src_rate`` to ``dst_rate``, block by block.

    Output sample ``k`` sits at input position ``k * src_rate / dst_rate``; each one is a
    Kaiser-windowed sinc interpolation of the input around that position, low-passed below the
    lower of the two Nyquist frequencies. Equal rates pass samples through unchanged.
    """

    def __init__(self, src_rate: int, dst_rate: int) -> None:
        if src_rate <= 0 or dst_rate <= 0:
            raise ValueError(f"sample rates must be positive, got {src_rate} -> {dst_rate}")
        self.src_rate = src_rate
        self.dst_rate = dst_rate
        g = math.gcd(src_rate, dst_rate)
        self._up = dst_rate // g  # output samples per ...
        self._down = src_rate // g  # ... this many input samples
        cutoff = 0.5 * min(1.0, dst_rate / src_rate) * _ROLLOFF  # cycles per input sample
        self._half = math.ceil(_ZERO_CROSSINGS / (2 * cutoff))
        self._bank = _filter_bank(self._up, self._half, cutoff)
        # Input history with absolute index of its first sample; primed with zeros so the
        # first output sample (at input position 0) has its left half of taps.
        self._history: Float32 = np.zeros(self._half - 1, dtype=np.float32)
        self._history_start = -(self._half - 1)
        self._consumed = 0  # input samples received
        self._produced = 0  # output samples emitted

    def push(self, block: npt.NDArray[np.generic]) -> Float32:
        """Feed input samples (float or int16); return every output sample now computable."""
        samples = as_float32(block)
        if self._up == self._down:
            return samples.copy()
        self._history = np.concatenate([self._history, samples])
        self._consumed += len(samples)
        return self._emit(available=self._consumed)

    def flush(self) -> Float32:
        """End of stream: emit the tail, treating the input after its end as silence."""
        if self._up == self._down:
            return np.zeros(0, dtype=np.float32)
        self._history = np.concatenate([self._history, np.zeros(self._half, dtype=np.float32)])
        total = -(-self._consumed * self._up // self._down)  # ceil: cover the last input sample
        return self._emit(available=self._consumed + self._half, limit=total)

    def _emit(self, available: int, limit: int | None = None) -> Float32:
        # Output k reads input up to floor(k*down/up) + half, which must be < available.
        last = ((available - self._half) * self._up - 1) // self._down  # largest computable k
        end = last + 1 if limit is None else min(last + 1, limit)
        if end <= self._produced:
            return np.zeros(0, dtype=np.float32)
        k = np.arange(self._produced, end, dtype=np.int64)
        base = (k * self._down) // self._up
        phase = (k * self._down) % self._up
        taps = np.arange(-self._half + 1, self._half + 1, dtype=np.int64)
        index = base[:, None] + taps[None, :] - self._history_start
        out: Float32 = np.einsum("ij,ij->i", self._history[index], self._bank[phase])
        self._produced = end
        # Keep only the history the next output sample can still reach.
        next_base = (end * self._down) // self._up
        drop = next_base - self._half + 1 - self._history_start
        if drop > 0:
            self._history = self._history[drop:]
            self._history_start += drop
        return out


def _filter_bank(up: int, half: int, cutoff: float) -> Float32:
    """One row of 2*half taps per fractional phase j/up, each row summing to 1 (unit DC gain)."""
    taps = np.arange(-half + 1, half + 1, dtype=np.float64)
    frac = np.arange(up, dtype=np.float64)[:, None] / up
    x = taps[None, :] - frac  # distance from each tap to the interpolated position
    window = np.i0(_KAISER_BETA * np.sqrt(np.clip(1.0 - (x / half) ** 2, 0.0, 1.0)))
    bank = 2 * cutoff * np.sinc(2 * cutoff * x) * window
    bank /= bank.sum(axis=1, keepdims=True)
    return bank.astype(np.float32)


def resample(block: npt.NDArray[np.generic], src_rate: int, dst_rate: int) -> Float32:
    """Convert a whole signal at once (same samples as streaming it through, then flushing)."""
    resampler = StreamResampler(src_rate, dst_rate)
    return np.concatenate([resampler.push(block), resampler.flush()])
