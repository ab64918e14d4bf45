"""The call's keepalive: a brain that sends is alive, even when its pong is late.

A brain streaming faster than a busy call reads has its pong wait behind its own frames;
websockets' keepalive ended such calls (~47 s in). Here a hand-written server never answers
a ping but sends unsolicited pongs (RFC 6455 5.5.3: "a unidirectional heartbeat"), then falls
silent, on a keepalive shortened to tenths of a second.
"""

from __future__ import annotations

import asyncio
import contextlib

from raw_brain import _PONG, _frame, _handshake
from websockets.asyncio.client import ClientConnection, connect
from websockets.protocol import State

from sandbox.wire.keepalive import PING_TIMEOUT_REASON, LivelyConnection

INTERVAL_S, TIMEOUT_S = 0.2, 0.3
#: How long the server chatters before it falls silent: many keepalive timeouts.
CHATTER_S = 1.5


async def _chatter(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answer the upgrade, send a pong every 50 ms for CHATTER_S, answer nothing."""
    await _handshake(reader, writer)
    loop = asyncio.get_running_loop()
    until = loop.time() + CHATTER_S
    with contextlib.suppress(ConnectionError):
        while loop.time() < until:
            writer.write(_frame(_PONG, b"alive"))
            await writer.drain()
            await asyncio.sleep(0.05)
        await reader.read()  # silent now: what comes is left unanswered, until it hangs up


async def _open(kind: type[ClientConnection]) -> tuple[ClientConnection, asyncio.Server]:
    server = await asyncio.start_server(_chatter, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    conn = await connect(
        f"ws://127.0.0.1:{port}/",
        create_connection=kind,
        ping_interval=INTERVAL_S,
        ping_timeout=TIMEOUT_S,
        close_timeout=0.2,  # the server never answers the close either
    )
    return conn, server


async def test_a_brain_that_keeps_sending_is_alive_until_it_falls_silent() -> None:
    conn, server = await _open(LivelyConnection)
    try:
        await asyncio.sleep(CHATTER_S - 0.2)
        assert conn.state is State.OPEN  # five timeouts with no pong, data all along
        async with asyncio.timeout(INTERVAL_S + TIMEOUT_S + 2.0):
            await conn.wait_closed()
        assert conn.protocol.close_sent is not None
        assert conn.protocol.close_sent.reason == PING_TIMEOUT_REASON
    finally:
        conn.transport.abort()
        server.close()
        await server.wait_closed()


async def test_websockets_own_keepalive_would_have_ended_it() -> None:
    """The case above fails without LivelyConnection: the pong is what the library waits for."""
    conn, server = await _open(ClientConnection)
    try:
        async with asyncio.timeout(CHATTER_S - 0.2):
            await conn.wait_closed()
        assert conn.protocol.close_sent is not None
        assert conn.protocol.close_sent.reason == "keepalive ping timeout"
    finally:
        conn.transport.abort()
        server.close()
        await server.wait_closed()
