"""The call as it stood at one moment, frozen: what the app is shown.

The app draws on a thread of its own while the call's loop changes the core, so it never
reads the core: every effect it is posted carries a :class:`CallSnapshot` taken on the call's
loop (with the frozen :class:`~sandbox.call.units.UnitView` of the unit a redraw is for), and
the host keeps the latest one as an immutable value the app's thread may read at any moment
(a timer counting dead air, a key that opens the settings). Replacing an immutable object is
safe across threads; reading a live core is not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from sandbox.call.effects import CallEnded, CallState, DeadAir
from sandbox.call.settings import Settings


@dataclass(frozen=True)
class CallSnapshot:
    """One moment of a call (see the module doc), built by ``CallCore.snapshot``."""

    session_id: str
    #: The wire capabilities the session offered (pb.Capability numbers).
    capabilities: tuple[int, ...]
    state: CallState
    watermark: int
    settings: Settings
    #: How the call ended, once it has.
    ended: CallEnded | None
    #: The latest caller turn and its waterfall so far (read-only), if a caller spoke.
    latest_timeline: tuple[int, Mapping[str, int]] | None
    #: The dead air being shown at this moment, if any, and since when (host ms).
    dead_air: DeadAir | None = None
    dead_air_since: int = 0

    def dead_air_at(self, now: int) -> DeadAir | None:
        """The dead air of this moment, counted on to ``now`` (as ``CallCore.dead_air_at``)."""
        gap = self.dead_air
        return None if gap is None else replace(gap, silent_ms=now - self.dead_air_since)
