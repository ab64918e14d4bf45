"""The call's own thread and event loop, beside the UI's.

Textual draws the screen on its event loop, 20-80 ms a frame on two busy cores; a call on
that loop waited for every frame drawn: the brain's first chunk, read 5 ms after the turn
went out, reached the core 30 ms later on average (up to 200), and the playout's word reports
and a barge-in's decision waited the same way. On its own loop the call runs whenever it has
work (Python hands the interpreter over every millisecond, :mod:`sandbox.audio.sinks`).

The UI never reads the core, which this loop changes: what it draws comes frozen
(:mod:`sandbox.call.snapshot`), in the messages the call posts and in the host's latest
snapshot; it does everything else through :meth:`CallThread.tell` and :meth:`CallThread.ask`,
which run on the call's loop, in the order given.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

log = logging.getLogger(__name__)

#: How long a cancelled call is given to end and write its report.
CANCEL_WAIT_S = 10.0


class CallThread:
    """Runs one coroutine on a thread and event loop of its own."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None

    async def run(self, work: Callable[[], Awaitable[None]]) -> None:
        """Run ``work()`` on a new thread's loop; returns, on the caller's loop, once it is
        over. Cancelled, it cancels ``work`` and waits (at most :data:`CANCEL_WAIT_S`) for
        it to finish, so the call's ``finally`` still writes its report."""
        home = asyncio.get_running_loop()
        over: asyncio.Future[None] = home.create_future()
        running: list[asyncio.Task[None]] = []

        async def body() -> None:
            self._loop = asyncio.get_running_loop()
            running.append(asyncio.ensure_future(work()))
            await running[0]

        def main() -> None:
            try:
                asyncio.run(body())
            except BaseException:  # the work's own failure is its to report; cancelled, over
                log.debug("the call's thread ended by an exception", exc_info=True)
            finally:
                with contextlib.suppress(RuntimeError):  # the caller's loop is gone
                    home.call_soon_threadsafe(_settle, over)

        threading.Thread(target=main, name="call", daemon=True).start()
        try:
            await asyncio.shield(over)
        except asyncio.CancelledError:
            if running:
                self.tell(running[0].cancel)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(over, CANCEL_WAIT_S)
            raise

    def tell(self, action: Callable[..., object], *args: Any) -> None:
        """Run ``action(*args)`` on the call's loop soon; nothing when no call runs."""
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the call ended and its loop closed
                loop.call_soon_threadsafe(action, *args)

    async def ask(self, question: Coroutine[Any, Any, T]) -> T:
        """Await ``question`` on the call's loop, from the caller's."""
        loop = self._loop
        if loop is None or loop.is_closed():
            question.close()
            raise RuntimeError("no call is running")
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(question, loop))


def _settle(over: asyncio.Future[None]) -> None:
    if not over.done():
        over.set_result(None)
