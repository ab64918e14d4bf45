"""The band a line passes (a telephone channel's 300 to 3,400 Hz): a linear-phase FIR
band-pass, filtering a stream frame by frame with its state carried across frames."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Float32 = npt.NDArray[np.float32]
#: Taps of the filter: a 12.5 ms window at 8 kHz, its edges some 80 Hz wide.
TAPS = 101


class BandPass:
    """Passes ``low``..``high`` Hz of a signal at ``rate``."""

    def __init__(self, low: int, high: int, rate: int) -> None:
        n = np.arange(TAPS) - (TAPS - 1) / 2
        window = np.hamming(TAPS)

        def lowpass(cutoff: float) -> npt.NDArray[np.float64]:
            taps: npt.NDArray[np.float64] = 2 * cutoff / rate * np.sinc(2 * cutoff / rate * n)
            taps *= window
            return taps / float(taps.sum())

        taps = lowpass(high) - (lowpass(low) if low > 0 else 0.0)
        self._taps = taps.astype(np.float32)
        self._tail: Float32 = np.zeros(TAPS - 1, dtype=np.float32)

    def filter(self, frame: Float32) -> Float32:
        """The next ``len(frame)`` samples of the filtered stream."""
        joined = np.concatenate([self._tail, frame])
        self._tail = joined[-(TAPS - 1) :]
        out: Float32 = np.convolve(joined, self._taps, mode="valid").astype(np.float32)
        return out
