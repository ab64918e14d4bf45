"""What a call's drivers wait on (a scripted caller, a test, the bench): a span of the call's
time, or a condition over the call. The host's step wakes them once what they wait for has
come, so each waits on one bare future rather than polling.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class CallWaits:
    """The call's sleepers and waiters. ``now`` is the call's clock in ms, ``clock`` the
    host's in seconds, ``ended`` whether the call is over, ``nudge`` wakes the host's loop."""

    now: Callable[[], int]
    clock: Callable[[], float]
    ended: Callable[[], bool]
    nudge: Callable[[], None]
    _timers: list[tuple[int, int, asyncio.Future[None]]] = field(default_factory=list)
    #: Waits in wait_for: each one's predicate, and the future woken once it holds.
    _waiters: list[tuple[Callable[[], bool], asyncio.Future[None]]] = field(default_factory=list)
    _timer_ids: itertools.count[int] = field(default_factory=itertools.count)

    def next_due(self) -> int | None:
        """When the next sleeper is due (call ms), or None."""
        return self._timers[0][0] if self._timers else None

    async def sleep(self, ms: int) -> None:
        """Wait ``ms`` of call time; returns at once when the call has ended."""
        if self.ended() or ms <= 0:
            return
        due = self.now() + ms
        timer: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._timers, (due, next(self._timer_ids), timer))
        self.nudge()  # the loop may be waiting with a later deadline
        await timer

    async def wait_for(self, predicate: Callable[[], bool], timeout_s: float) -> bool:
        """Wait until ``predicate()`` holds after some event, or the timeout; True if it held."""
        loop = asyncio.get_running_loop()
        deadline = self.clock() + timeout_s
        while not predicate():
            left = deadline - self.clock()
            if left <= 0 or self.ended():
                return predicate()
            # A bare future, woken straight from the step once the predicate holds (not on
            # every event: 2,000 calls' waits woke for nothing hundreds of times a call): the
            # waiter runs on the loop's very next turn, before a warp clock decides whether
            # anything is left to wait for.
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append((predicate, waiter))
            timer = loop.call_later(left, _resolve, waiter)
            try:
                await waiter
            finally:
                timer.cancel()
        return True

    def wake_sleepers(self, everyone: bool = False) -> None:
        """Wake the sleepers now due (``everyone``: all of them, the call has ended)."""
        now = self.now()
        while self._timers and (everyone or self._timers[0][0] <= now):
            _resolve(heapq.heappop(self._timers)[2])

    def wake_waiters(self) -> None:
        """Wake each wait_for whose predicate now holds, and all of them once the call has
        ended (a predicate that raises wakes its waiter, which raises it in its own task)."""
        if not self._waiters:
            return
        ended = self.ended()
        still: list[tuple[Callable[[], bool], asyncio.Future[None]]] = []
        for predicate, waiter in self._waiters:
            if waiter.done():
                continue
            if ended or _holds(predicate):
                waiter.set_result(None)
            else:
                still.append((predicate, waiter))
        self._waiters = still


def _resolve(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


def _holds(predicate: Callable[[], bool]) -> bool:
    """Whether a waiter's predicate holds; one that raises is woken to raise it itself."""
    try:
        return predicate()
    except Exception:
        return True
