"""How late the load generator's own event loop runs: the measure of its own overload.

Every call of a run shares one event loop. When they ask more of it than the machine's core
gives, everything waits its turn: a dial's handshake, a chunk read off its socket. A dial
that times out then, or a first chunk that reads late, says nothing about the brain. A task
sleeps :data:`SLICE_S` at a time and notes how much later than that it woke; a dial that
failed while the loop ran :data:`OVERLOADED_S` late is the load generator's failure, and
the run's figures say how late the loop ran.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from sandbox.load.tally import percentile

#: How often the loop is sampled (s).
SLICE_S = 0.1
#: A loop this late (s) cannot be said to have given a dial or a reply its chance: the 5 s
#: a dial may take is a fifth gone before it is even looked at.
OVERLOADED_S = 1.0


@dataclass
class LoopLag:
    """The loop's lateness, sampled while :meth:`watching` runs: each sample's time
    (``time.monotonic()``) and how late it woke (s)."""

    times: list[float] = field(default_factory=list)
    late_s: list[float] = field(default_factory=list)
    _sampling: bool = False

    @contextlib.asynccontextmanager
    async def watching(self) -> AsyncIterator[LoopLag]:
        """Sample the running loop for as long as the block runs."""
        task = asyncio.create_task(self._sample())
        self._sampling = True
        try:
            yield self
        finally:
            self._sampling = False
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _sample(self) -> None:
        # The wall's monotonic clock, not the loop's: uvloop's reads the time the loop's
        # turn began, in whole ms, and a wake-up run late within a long turn read on time.
        while True:
            before = time.monotonic()
            await asyncio.sleep(SLICE_S)
            now = time.monotonic()
            self.times.append(now)
            self.late_s.append(max(0.0, now - before - SLICE_S))

    def worst_since(self, since: float) -> float:
        """The latest the loop woke (s) from ``since`` (``time.monotonic()``) to now; a sample
        due now and not yet taken counts as late as it already is."""
        worst = max((late for at, late in zip(self.times, self.late_s, strict=True)
                     if at >= since), default=0.0)  # fmt: skip
        if self._sampling and self.times:
            pending = time.monotonic() - self.times[-1] - SLICE_S
            worst = max(worst, pending)
        return worst

    def figures_ms(self) -> dict[str, float | None]:
        """The lateness's p50, p99 and worst (ms), for the summary and ``--json``."""
        late_ms = [late * 1000 for late in self.late_s]
        return {
            "p50": percentile(late_ms, 50),
            "p99": percentile(late_ms, 99),
            "max": max(late_ms, default=None),
        }
