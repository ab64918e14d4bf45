"""Which packets a line loses: in bursts, as a two-state (Gilbert) model does, and the ones
the network delays past the receiver's jitter buffer. Seeded, so a line loses the same
packets every run."""

from __future__ import annotations

import random


class PacketLoss:
    """One direction's losses. ``loss`` of the packets lost in bursts of ``mean_burst`` on
    average; each packet also waits an extra network delay, normal with standard deviation
    ``jitter_ms`` (none below zero), and one later than ``buffer_ms`` is lost to its buffer."""

    def __init__(
        self, loss: float, mean_burst: float, jitter_ms: int, buffer_ms: int, seed: int
    ) -> None:
        self._rng = random.Random(seed)
        # In the bad state every packet is lost: it is left with chance 1/mean_burst, so a
        # burst lasts mean_burst packets; entered with the chance that makes the bad state's
        # share of the time ``loss``.
        self._leave = 1.0 / mean_burst
        self._enter = loss * self._leave / (1.0 - loss) if loss < 1.0 else 1.0
        self._bad = False
        self._jitter_ms = jitter_ms
        self._buffer_ms = buffer_ms
        self.sent = 0
        self.lost = 0
        self.late = 0

    def next_lost(self) -> bool:
        """Whether the next packet is lost (in a burst, or late for its buffer)."""
        self.sent += 1
        roll = self._rng.random()
        self._bad = roll >= self._leave if self._bad else roll < self._enter
        late = self._jitter_ms > 0 and self._rng.gauss(0.0, self._jitter_ms) > self._buffer_ms
        self.late += late and not self._bad
        lost = self._bad or late
        self.lost += lost
        return lost
