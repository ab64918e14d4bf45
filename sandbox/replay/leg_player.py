"""The two recorded legs, played back through a speaker in step with the replay.

The speaker device pulls blocks from :meth:`LegPlayer.pull` on its own thread, and the
player's sample position *is* the replay's clock while it plays, so the panes follow the
sound to within one output block. Speed steps through the samples faster or slower (the
pitch moves with it, as a tape's would); each leg can be muted on its own.
"""

from __future__ import annotations

import threading

import numpy as np
import numpy.typing as npt

from sandbox.record.legs import at_rate

Samples = npt.NDArray[np.int16]


class LegPlayer:
    """Mixes the enabled legs from a position at a speed; ``pull`` feeds the device."""

    def __init__(self, legs: dict[str, tuple[Samples, int]], rate: int) -> None:
        """``legs``: each leg's samples and rate; a leg at another rate is brought to ``rate``
        (the legs are kept as 16-bit samples: a long call's stay small)."""
        self.rate = rate
        self._legs: dict[str, Samples] = {
            name: samples if leg_rate == rate else _int16(at_rate(samples, leg_rate, rate))
            for name, (samples, leg_rate) in legs.items()
        }
        self.enabled = dict.fromkeys(self._legs, True)
        self.length = max((len(s) for s in self._legs.values()), default=0)
        self.speed = 1.0
        self.playing = False
        self._position = 0.0  # in samples at ``rate``
        self._lock = threading.Lock()

    @property
    def position_ms(self) -> int:
        """Where playback is, on the call's clock."""
        with self._lock:
            return int(self._position * 1000 / self.rate)

    def seek(self, t_ms: int) -> None:
        """Jump to ``t_ms``."""
        with self._lock:
            self._position = min(max(t_ms, 0) * self.rate / 1000, float(self.length))

    def toggle(self, leg: str) -> bool:
        """Mute or unmute one leg (``mic`` or ``speaker``); whether it now plays."""
        self.enabled[leg] = not self.enabled.get(leg, False)
        return self.enabled[leg]

    def pull(self, frames: int) -> npt.NDArray[np.int16]:
        """The next block for the device (its audio thread): silence while paused."""
        with self._lock:
            if not self.playing or self._position >= self.length:
                return np.zeros(frames, dtype=np.int16)
            at = (self._position + np.arange(frames) * self.speed).astype(np.int64)
            self._position += frames * self.speed
        out = np.zeros(frames, dtype=np.int32)
        for name, samples in self._legs.items():
            if self.enabled[name]:
                inside = at < len(samples)
                out[inside] += samples[at[inside]]
        return np.clip(out, -32768, 32767).astype(np.int16)


def _int16(floats: npt.NDArray[np.float32]) -> Samples:
    return (np.clip(floats, -1.0, 1.0) * 32767).astype(np.int16)
