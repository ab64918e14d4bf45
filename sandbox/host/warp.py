"""Call time that skips the dead time of a simulated call: a re-drive at many times real time.

A simulated call spends almost all of its time waiting: for the next word's slot in the
playout, for a silence in the script, for the idle nudge. :class:`WarpClock` is a monotonic
clock the host can move forward over such waits instead of sleeping through them. The host
skips (see :meth:`CallHost._step`) only when nothing can happen in between: no event is
queued, the brain owes no reply (so its latency, and the stall warning, run on real time),
and the link has been quiet for :attr:`WarpClock.grace_s` of wall time since the last frame
either way (a streaming reply's next piece, or the brain's answer to a Finalize, would land
in that gap). Everything recorded uses the warped time, so a re-drive's session reads as if
it had played in real time.
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: Wall time the brain's link must have been quiet before dead time is skipped.
DEFAULT_GRACE_S = 0.03


class WarpClock:
    """A monotonic clock (seconds) that can be moved forward; see the module doc."""

    def __init__(
        self, wall: Callable[[], float] = time.monotonic, grace_s: float = DEFAULT_GRACE_S
    ) -> None:
        """``wall``: the real clock underneath; ``grace_s``: the quiet needed to skip."""
        self._wall = wall
        self.grace_s = grace_s
        self._skipped = 0.0
        self._io_at = wall()

    def __call__(self) -> float:
        """Now, on the warped clock."""
        return self._wall() + self._skipped

    @property
    def skipped_s(self) -> float:
        """How much time has been skipped so far."""
        return self._skipped

    def brain_io(self) -> None:
        """A frame crossed the brain's link: wait for quiet again before skipping."""
        self._io_at = self._wall()

    def quiet_left(self) -> float:
        """Wall seconds until the link has been quiet long enough to skip (0: now)."""
        return max(0.0, self.grace_s - (self._wall() - self._io_at))

    def skip(self, seconds: float) -> None:
        """Move the clock forward."""
        self._skipped += max(0.0, seconds)
