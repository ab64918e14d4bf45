"""The call's keepalive: any data from the brain is a sign of life, not only a pong.

websockets' own keepalive ends a connection whose pong is late, however much else the brain
is sending. A brain streaming flat out fills the socket's buffers faster than a busy call
reads them, and its pong waits behind megabytes of its own frames: the library then ended
a live call ("the brain stopped answering pings") after ~47 s. Here a ping goes out only
after :data:`~sandbox.wire.dial.PING_INTERVAL_S` of silence from the brain, and the call
ends only if neither its pong nor any other byte comes back within the timeout.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.frames import CloseCode

#: The close reason websockets gives its own keepalive; ``closed_words`` reads it.
PING_TIMEOUT_REASON = "keepalive ping timeout"


class LivelyConnection(ClientConnection):
    """A client connection whose keepalive counts every byte received as an answer."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.last_data = self.loop.time()
        #: When bytes last arrived (``time.monotonic()``): a message being read arrived then
        #: or before, however long a busy loop took to get to it.
        self.arrived_at: float | None = None

    def data_received(self, data: bytes) -> None:
        """Note when the brain last sent anything, then hand the bytes on."""
        self.last_data = self.loop.time()
        self.arrived_at = time.monotonic()
        super().data_received(data)

    async def keepalive(self) -> None:
        """Ping after a quiet interval; fail the connection when nothing at all comes back."""
        interval, timeout = self.ping_interval, self.ping_timeout
        assert interval is not None  # started only when there is an interval
        while True:
            quiet = self.loop.time() - self.last_data
            if quiet < interval:
                await asyncio.sleep(interval - quiet)
                continue
            pinged = self.loop.time()
            pong = asyncio.ensure_future(await self.ping())  # a Future, typed Awaitable
            if timeout is None:  # pinged, never waited on
                await asyncio.sleep(interval)
                continue
            while not pong.done():
                left = timeout - (self.loop.time() - max(pinged, self.last_data))
                if left <= 0:
                    async with self.send_context():
                        self.protocol.fail(CloseCode.INTERNAL_ERROR, PING_TIMEOUT_REASON)
                    return
                await asyncio.wait([pong], timeout=left)
