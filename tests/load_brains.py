"""Brains for the load tests, each served over a real WebSocket on loopback."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from fixtures_bad_brains import ChunkAfterEnd, WireBrain, WireServer
from websockets.asyncio.server import ServerConnection, serve

from sandbox.wire import decode


@dataclass
class EveryThirdBreaks:
    """Keeps every rule except on every third session it serves, which adds a chunk to a
    unit it has closed (a bracket broken). ``broken``: those sessions' ids."""

    served: int = 0
    broken: set[str] = field(default_factory=set)

    async def handle(self, ws: ServerConnection) -> None:
        """One session: the conformant wire brain, or on every third the rule breaker."""
        self.served += 1
        brain = WireBrain
        if self.served % 3 == 0:
            assert ws.request is not None
            self.broken.add(parse_qs(urlsplit(ws.request.path).query)["session_id"][0])
            brain = ChunkAfterEnd
        await brain(ws).run()


async def serve_every_third() -> tuple[WireServer, EveryThirdBreaks]:
    """The every-third-call rule breaker on a free loopback port."""
    brain = EveryThirdBreaks()
    server = await serve(brain.handle, "127.0.0.1", 0)
    return WireServer(server, server.sockets[0].getsockname()[1]), brain


async def _drops_after_session_start(ws: ServerConnection) -> None:
    """Accepts, reads the SessionStart, then drops the socket without a word."""
    decode(await ws.recv())
    ws.transport.abort()


async def _closes_at_accept(ws: ServerConnection) -> None:
    """Accepts the WebSocket and closes it at once, before a word."""
    await ws.close()


async def serve_dropper(*, at_accept: bool = False) -> WireServer:
    """A brain that accepts each call and drops it once it has started (or, ``at_accept``,
    closes it at once)."""
    handler = _closes_at_accept if at_accept else _drops_after_session_start
    server = await serve(handler, "127.0.0.1", 0)
    return WireServer(server, server.sockets[0].getsockname()[1])


class _Slowing(WireBrain):
    """Answers each turn after a delay that grows with the sessions open at once."""

    open_now = 0
    delay_per_session_s = 0.4

    async def on_message(self, turn: int, text: str) -> None:
        await asyncio.sleep(self.delay_per_session_s * _Slowing.open_now)
        await super().on_message(turn, text)


async def _slows_with_load(ws: ServerConnection) -> None:
    _Slowing.open_now += 1
    try:
        await _Slowing(ws).run()
    finally:
        _Slowing.open_now -= 1


async def serve_slowing() -> WireServer:
    """A brain that slows down as load grows: 0.4 s per session open, on every answer."""
    server = await serve(_slows_with_load, "127.0.0.1", 0)
    return WireServer(server, server.sockets[0].getsockname()[1])
