"""A simulated laptop echo path: how the bot's own voice comes back into the microphone.

A small speaker driven hard (soft clipping), the direct path ``delay_ms`` late (output
buffer + air), a 120 ms exponentially decaying room tail, ``gain`` overall, and the mic's
own hiss. Used by scripted calls (``--echo-path``), the benchmarks and the tests to prove
the echo canceller keeps the bot from interrupting itself.
"""

from __future__ import annotations

import numpy as np

from sandbox.audio.resample import Float32


class LaptopEchoPath:
    """Streams block by block: feed :meth:`step` what the speaker emits (zeros when silent)
    and add the caller's voice to what it returns."""

    def __init__(self, rate: int, *, delay_ms: int = 50, gain: float = 0.5, seed: int = 0) -> None:
        self._rng = np.random.default_rng(seed)
        tail = rate * 120 // 1000
        room = self._rng.standard_normal(tail) * np.exp(-np.arange(tail) / (0.025 * rate)) * 0.3
        room[0] = 1.0
        self._response = np.concatenate([np.zeros(rate * delay_ms // 1000), room]) * gain
        self._history = np.zeros(len(self._response) - 1)

    def step(self, speaker: Float32) -> Float32:
        """What the microphone picks up from the speaker during this block."""
        driven = np.concatenate([self._history, np.tanh(2.0 * speaker) / 2.0])
        self._history = driven[len(driven) - len(self._history) :]
        heard = np.convolve(driven, self._response, mode="valid")
        return (heard + self._rng.standard_normal(len(heard)) * 0.001).astype(np.float32)
