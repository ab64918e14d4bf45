"""The control leg from the brain's end: one Response per Request, matched on request_id."""

from __future__ import annotations

import asyncio

from sandbox.sdk.errors import SessionClosed
from sandbox.wire import pb


class Control:
    """Mints request ids (session-monotonic) and hands each Response to its waiter."""

    def __init__(self) -> None:
        self._next_id = 1
        self._waiting: dict[int, asyncio.Future[pb.Response]] = {}

    def ask(self, config: pb.Config) -> tuple[pb.Request, asyncio.Future[pb.Response]]:
        """A configure Request with a fresh id, and the future its Response will resolve."""
        request = pb.Request(request_id=self._next_id, configure=config)
        self._next_id += 1
        future: asyncio.Future[pb.Response] = asyncio.get_running_loop().create_future()
        self._waiting[request.request_id] = future
        return request, future

    def answer(self, response: pb.Response) -> bool:
        """Resolve the waiter of this Response; False if no Request of ours awaits it."""
        future = self._waiting.pop(response.request_id, None)
        if future is None:
            return False
        if not future.done():  # the asker may have been cancelled meanwhile
            future.set_result(response)
        return True

    def abandon(self) -> None:
        """The session is over: every waiting request fails with SessionClosed."""
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(SessionClosed("the session ended before Voqalize answered"))
                future.exception()  # retrieved: the asker may already be gone
        self._waiting.clear()
