"""Raw-wire brains that fail the way a worker fails, for end-to-end tests of the call record
and of idle: each is a websockets handler (not on the SDK, which would not let a brain
fail like this), served on loopback by :func:`served` on its own loop in a thread.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

from ui_brains import in_thread
from websockets.asyncio.server import ServerConnection, serve

from sandbox.audio.tts import MAX_WORD_CHARS
from sandbox.wire import decode, encode, pb
from sandbox.wire.codec import envelope

Handler = Callable[[ServerConnection], Awaitable[None]]
GREETING = "Hello, I am a brain that never answers an idle turn."
#: The fatal Error's words, so a test can find them in the record's reason.
FATAL = "the model provider refused the key"
#: The close reason of the brain that falls over at once.
FELL_OVER = "the brain fell over on start"
#: A greeting no synthesizer will say: one "word" longer than any it speaks.
UNSAYABLE = "k" * (MAX_WORD_CHARS + 50)
#: What the unsayable greeter answers every line with.
ANSWER = "I can hear you now."


async def _read_on(ws: ServerConnection) -> None:
    """Read every frame and answer none, until the call ends."""
    with contextlib.suppress(Exception):
        async for _ in ws:
            pass


async def greets_then_ignores_idle(ws: ServerConnection) -> None:
    """Greets, then never answers anything: every UserIdle (and any line) goes unanswered."""
    start = decode(await ws.recv()).session_start
    await say(ws, 1, start.turn_id, GREETING)
    await _read_on(ws)


async def closes_after_start(ws: ServerConnection) -> None:
    """Closes the socket with 1011 as soon as SessionStart arrives."""
    await ws.recv()
    await ws.close(1011, FELL_OVER)


async def fatal_after_start(ws: ServerConnection) -> None:
    """Answers SessionStart with a fatal INTERNAL Error and End."""
    await ws.recv()
    error = pb.Error(code=pb.ERROR_CODE_INTERNAL, message=FATAL, fatal=True)
    await ws.send(encode(envelope(error)))
    await ws.send(encode(envelope(pb.End())))
    await _read_on(ws)


async def never_speaks(ws: ServerConnection) -> None:
    """Accepts the session and never sends a frame."""
    await _read_on(ws)


async def greets_unsayably(ws: ServerConnection) -> None:
    """Greets with a word no synthesizer will say, then answers each line sayably."""
    await ws.recv()
    await say(ws, 1, 1, UNSAYABLE)
    sid = 1
    with contextlib.suppress(Exception):
        async for message in ws:
            env = decode(message)
            if env.HasField("user_message"):
                sid += 1
                await say(ws, sid, env.user_message.turn_id, ANSWER)


async def say(ws: ServerConnection, sid: int, turn: int, text: str) -> None:
    """One whole unit on the wire: SpeechStart, its text in one chunk, SpeechEnd."""
    for body in (
        pb.SpeechStart(speech_id=sid, turn_id=turn),
        pb.SpeechChunk(speech_id=sid, text=text),
        pb.SpeechEnd(speech_id=sid),
    ):
        await ws.send(encode(envelope(body)))


@contextlib.contextmanager
def served(handler: Handler) -> Iterator[str]:
    """Serve ``handler`` on loopback in a thread; yields the URL to dial."""

    @contextlib.asynccontextmanager
    async def serving() -> AsyncIterator[str]:
        async with serve(handler, "127.0.0.1", 0) as server:
            yield f"ws://127.0.0.1:{next(iter(server.sockets)).getsockname()[1]}/brain"

    with in_thread(serving) as url:
        yield url
