"""An input posted to a call's host, waiting for the core to take it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sandbox.call.effects import Effect
from sandbox.call.inputs import CoreInput


@dataclass
class Posted:
    """One input in the host's queue, taken by the core in the order posted. ``fed`` None is
    nothing for the core: a mark its poster waits on (see :meth:`CallHost.caught_up`).
    ``taken``: told the effects the core returned for it, as it takes it (a frame's room
    made for the reader, a settings change's answer). The brain's side may grow ``fed``
    while it waits (frames only counted add to one :class:`~sandbox.call.inputs.UnitCounted`)."""

    fed: CoreInput | None
    taken: Callable[[list[Effect]], None] | None = None
