"""Brains that go wrong, written straight against the wire, for the app's error paths.

Real WebSocket servers on loopback: one refuses the session's wire version as a brain
built for another version does (a fatal VERSION Error, then End), one drops the socket
after the greeting. :func:`in_thread` serves one from its own event loop, for apps that
run theirs (snapshot tests).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import Future

from websockets.asyncio.server import ServerConnection, serve

from sandbox.wire import pb
from sandbox.wire.codec import decode, encode, envelope

REFUSAL = (
    "this brain speaks wire version 2 and Voqalize offered version 3; "
    "the versions must be equal, so the session is refused"
)
GREETING = "Hello, I will hang up on you."


async def _refuse_version(ws: ServerConnection) -> None:
    decode(await ws.recv())  # SessionStart
    error = pb.Error(code=pb.ERROR_CODE_VERSION, message=REFUSAL, fatal=True)
    await ws.send(encode(envelope(error)))
    await ws.send(encode(envelope(pb.End())))
    await ws.wait_closed()


async def _greet_then_drop(ws: ServerConnection) -> None:
    start = decode(await ws.recv()).session_start
    for body in (
        pb.SpeechStart(speech_id=1, turn_id=start.turn_id),
        pb.SpeechChunk(speech_id=1, text=GREETING),
        pb.SpeechEnd(speech_id=1),
    ):
        await ws.send(encode(envelope(body)))
    decode(await ws.recv())  # the greeting's Finalize
    await ws.close(1011, "brain crashed")


@contextlib.asynccontextmanager
async def _serving(handler: Callable[[ServerConnection], Awaitable[None]]) -> AsyncIterator[str]:
    async with serve(handler, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        yield f"ws://127.0.0.1:{port}/brain"


def version_refusing_brain() -> contextlib.AbstractAsyncContextManager[str]:
    """A brain for wire version 2: refuses every session. Yields its URL."""
    return _serving(_refuse_version)


def dropping_brain() -> contextlib.AbstractAsyncContextManager[str]:
    """A brain that greets, and closes the socket once the greeting was heard."""
    return _serving(_greet_then_drop)


@contextlib.contextmanager
def in_thread(
    serving: Callable[[], contextlib.AbstractAsyncContextManager[str]],
) -> Iterator[str]:
    """Serve a brain on its own event loop in a thread; yields its URL until the block ends."""
    loop = asyncio.new_event_loop()
    url: Future[str] = Future()
    stop = asyncio.Event()

    async def main() -> None:
        async with serving() as where:
            url.set_result(where)
            await stop.wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
    thread.start()
    try:
        yield url.result(timeout=10)
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(timeout=10)
        loop.close()
