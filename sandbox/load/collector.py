"""Python's garbage collector while a load run's calls are in flight: held, then let go.

Thousands of calls in flight keep hundreds of thousands of objects alive for as long as a
call lasts, and the collector's automatic passes walk them again and again: one pass over
1,000 calls' objects stopped this process's event loop for 200 to 400 ms, and every call's
first chunk then read that much later (the brain never at fault). Nearly all of a call's
objects are freed by their reference counts the moment it ends; the few left in cycles
(about 150 a call, exceptions and their tracebacks) wait for a full pass every
:data:`COLLECT_EVERY_CALLS` calls, and at the end of the run.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from dataclasses import dataclass

#: Calls ended between full passes of the collector: what they left in cycles, a few
#: tens of megabytes, is all the memory held back.
COLLECT_EVERY_CALLS = 2000


@dataclass
class HeldCollector:
    """Counts the calls that ended; a full pass every ``every`` of them."""

    every: int = COLLECT_EVERY_CALLS
    ended: int = 0

    def call_ended(self) -> None:
        """One more call is over (its objects freed, but for its cycles)."""
        self.ended += 1
        if self.ended % self.every == 0:
            gc.collect()


@contextlib.contextmanager
def collector_held(every: int = COLLECT_EVERY_CALLS) -> Iterator[HeldCollector]:
    """Hold the automatic collector for the block: what is alive when it starts (modules,
    the brain's URL...) is never walked again, and nothing is walked while calls play but
    every ``every`` calls. The collector is as it was after, its cycles collected."""
    was_on = gc.isenabled()
    gc.freeze()
    gc.disable()
    try:
        yield HeldCollector(every)
    finally:
        gc.unfreeze()
        if was_on:
            gc.enable()
        gc.collect()
