"""An in-process brain link: a CallHost talks to a BrainConnection with no socket between.

Every envelope still crosses as bytes through the wire codec in both directions, so
a brain hosted here meets exactly what it would meet behind a WebSocket: what the
core sends is encoded, decoded and fed to the SDK; what the SDK sends is encoded and
handed to the host's reader, which decodes and records it like any socket message.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

from sandbox.call.ports import Playout
from sandbox.host.launch import CallOptions, host_for
from sandbox.host.session import CallHost
from sandbox.sdk.brain import Brain
from sandbox.sdk.connection import BrainConnection
from sandbox.wire import pb
from sandbox.wire.codec import WireError, decode, encode


class InProcLink:
    """A :class:`~sandbox.host.brain_side.BrainLink` to a brain in this process.

    Construct it inside a running event loop. The link ends (its iterator stops) once
    the brain's session is over, as a brain server closes its socket then.
    """

    def __init__(self, brain: Brain, session_id: str) -> None:
        self._inbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        #: The brain's end of the session.
        self.connection = BrainConnection(brain, self._from_brain, session_id=session_id)
        self._watcher = asyncio.create_task(self._end_when_closed())

    async def send(self, message: bytes) -> None:
        """Hand one message from Voqalize to the brain, decoded as a server would."""
        try:
            env = decode(message)
        except WireError as exc:
            self.connection.report_malformed(str(exc))
            return
        await self.connection.feed(env)

    async def close(self) -> None:
        """End the brain's session (its ``finally`` blocks run) and the link with it."""
        await self.connection.close()
        await self._watcher

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while (message := await self._inbox.get()) is not None:
            yield message

    async def _from_brain(self, env: pb.Envelope) -> None:
        self._inbox.put_nowait(encode(env))

    async def _end_when_closed(self) -> None:
        await self.connection.wait_closed()
        self._inbox.put_nowait(None)


def open_inproc_call(options: CallOptions, brain: Brain, playout: Playout) -> CallHost:
    """A call to ``brain`` hosted in this process: the real core, recorder and host."""
    session_id = str(uuid.uuid4())
    link = InProcLink(brain, session_id)
    return host_for(options, link, session_id, f"in-process:{type(brain).__name__}", playout)
