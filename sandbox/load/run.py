"""A load run: N simulated calls, C at a time, ramped up, stopped early at too many failures.

Every call runs on this one event loop (:mod:`sandbox.load.one_call`); over the relay leg
they all share one socket (:mod:`sandbox.load.shared_relay`). Calls already placed when
the failure limit is reached play to their end, so each is counted and nothing is left
open; no new call starts after it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from sandbox.host.launch import speech_tier
from sandbox.load.call_result import CallResult
from sandbox.load.collector import collector_held
from sandbox.load.loop_lag import LoopLag
from sandbox.load.one_call import DIALS_AT_ONCE, Dialing, Target, place_call
from sandbox.load.shared_relay import SharedRelay
from sandbox.load.tally import Tally
from sandbox.record.store import SessionStore
from sandbox.wire.tokens import load_or_create_keys

#: Which calls stay in the session store once the run is over.
KEEP_CHOICES = ("failed", "all", "none")


@dataclass(frozen=True)
class LoadPlan:
    """How many calls, how many at once, over how long the concurrency ramps up (seconds),
    how many failed calls stop the run (None: never), and which sessions to keep."""

    calls: int
    concurrency: int
    ramp_s: float = 0.0
    max_failures: int | None = None
    keep: str = "failed"


@dataclass
class LoadRun:
    """A run in progress: its tally, the calls in flight now, and whether it stopped early."""

    plan: LoadPlan
    tally: Tally = field(default_factory=Tally)
    in_flight: int = 0
    peak_in_flight: int = 0
    #: First-chunk latencies as they are measured, calls in flight included.
    live_first_chunk_ms: list[float] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None
    stopped_early: bool = False
    #: How late this process's event loop ran while the calls did.
    lag: LoopLag = field(default_factory=LoopLag)

    @property
    def wall_s(self) -> float:
        """Seconds from the first call to the last one's end (or now)."""
        return (self.ended or time.monotonic()) - self.started


async def run_load(
    plan: LoadPlan,
    target: Target,
    *,
    relay: bool = False,
    on_call: Callable[[LoadRun, CallResult], None] | None = None,
    run: LoadRun | None = None,
) -> LoadRun:
    """Place ``plan.calls`` calls at ``target``, all on one shared socket when ``relay``
    (``target.brain_url`` is then the relay's ``/agent``). ``run``: a LoadRun to fill in
    (a progress display reads it live). Raises DialError if the shared relay socket
    cannot be opened."""
    run = run or LoadRun(plan)
    shared = await SharedRelay.open(target.brain_url) if relay else None
    keys = target.keys or await asyncio.to_thread(load_or_create_keys)
    target = replace(target, relay=shared, caps=target.caps or speech_tier(), keys=keys)
    indices = iter(range(plan.calls))
    dialing = Dialing(asyncio.Semaphore(DIALS_AT_ONCE), run.lag)
    #: Set once no call is left to start: a slot still waiting for its place in the ramp
    #: then stops rather than sleeping it out (2 calls over a 1,000 s ramp took 500 s).
    none_left = asyncio.Event()

    def next_call() -> int | None:
        index = None if run.stopped_early else next(indices, None)
        if index is None or index == plan.calls - 1:
            none_left.set()
        return index

    async def worker(slot: int) -> None:
        # The ramp: slot k of C starts k/C of the way through it.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(none_left.wait(), plan.ramp_s * slot / plan.concurrency)
        while (index := next_call()) is not None:
            run.in_flight += 1
            run.peak_in_flight = max(run.peak_in_flight, run.in_flight)
            try:
                result = await place_call(index, target, run.live_first_chunk_ms.append, dialing)
            finally:
                run.in_flight -= 1
            held.call_ended()  # the collector held for the run (below), as calls end
            run.tally.add(result)
            if plan.max_failures is not None and run.tally.failed >= plan.max_failures:
                run.stopped_early = run.tally.done < plan.calls
            if on_call is not None:
                on_call(run, result)

    try:
        with collector_held() as held:
            async with run.lag.watching():
                await asyncio.gather(*(worker(slot) for slot in range(plan.concurrency)))
    finally:
        run.ended = time.monotonic()
        if shared is not None:
            await shared.close()
    if target.record:
        await asyncio.to_thread(_forget_unkept, run.tally.calls, plan.keep)
    return run


def _forget_unkept(calls: list[CallResult], keep: str) -> None:
    """Delete the sessions ``keep`` does not keep (each call was recorded as it ran, so a
    killed run still left every call up to then in the store)."""
    unkept = [c.session_id for c in calls if keep == "none" or (keep == "failed" and not c.failed)]
    if not unkept:
        return
    with SessionStore() as store:
        for session_id in unkept:
            store.delete(session_id)
