"""Brains written directly against the wire, for ``sandbox check`` tests.

Real servers: a tiny websockets server per brain, one session per socket, every
message an envelope through ``sandbox.wire``'s codec — not mocks, and not on the SDK,
which would never let a brain break these rules. :class:`WireBrain` itself keeps every
rule (greets on turn 1, answers each turn on that turn, stops a dead turn, never
reuses an id); each subclass breaks exactly one.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from sandbox.wire import decode, encode, pb


class WireBrain:
    """A conformant hand-written brain; one instance per session."""

    greeting = "Hello, this is a brain written straight against the wire."
    #: Pause between the words it streams, in seconds.
    word_delay_s = 0.005

    def __init__(self, ws: ServerConnection) -> None:
        self.ws = ws
        self.watermark = 0
        self._next_id = 1
        self._mouth = asyncio.Lock()  # one unit on the wire at a time
        self._tasks: set[asyncio.Task[None]] = set()

    async def send(self, body: Message) -> None:
        await self.ws.send(encode(body))

    def mint(self) -> int:
        sid = self._next_id
        self._next_id += 1
        return sid

    async def say(
        self, turn: int, text: str, *, stop_when_dead: bool = True, delay_s: float | None = None
    ) -> int:
        """One unit on ``turn``, streamed a word at a time; returns its speech_id."""
        async with self._mouth:
            sid = self.mint()
            await self.send(pb.SpeechStart(speech_id=sid, turn_id=turn))
            for word in text.split(" "):
                if stop_when_dead and turn <= self.watermark:
                    break
                await self.send(pb.SpeechChunk(speech_id=sid, text=word + " "))
                await asyncio.sleep(self.word_delay_s if delay_s is None else delay_s)
            await self.send(pb.SpeechEnd(speech_id=sid))
            return sid

    async def on_start(self) -> None:
        await self.say(1, self.greeting)

    async def on_message(self, turn: int, text: str) -> None:
        await self.say(turn, f"You said {text} and that is all I can say about it today.")

    async def on_interruption(self, through_turn: int) -> None:
        """The caller cut in (most brains only mark the watermark)."""

    def on_response(self, response: pb.Response) -> None:
        """The answer to a Request this brain sent (most send none)."""

    async def run(self) -> None:
        try:
            async for message in self.ws:
                env = decode(message)
                arm = env.WhichOneof("body")
                if arm == "session_start":
                    self._spawn(self.on_start())
                elif arm == "user_message":
                    self._spawn(self.on_message(env.user_message.turn_id, env.user_message.text))
                elif arm == "interruption":
                    self.watermark = max(self.watermark, env.interruption.through_turn)
                    self._spawn(self.on_interruption(env.interruption.through_turn))
                elif arm == "response":
                    self.on_response(env.response)
                elif arm == "end":
                    break
        except ConnectionClosed:
            pass
        finally:
            for task in self._tasks:
                task.cancel()

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        async def guarded() -> None:
            with contextlib.suppress(ConnectionClosed):
                await work

        task = asyncio.create_task(guarded())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


class ReusesSpeechIds(WireBrain):
    """Numbers units by their turn, so a turn's second unit reuses its first one's id."""

    def __init__(self, ws: ServerConnection) -> None:
        super().__init__(ws)
        self.turn = 1

    def mint(self) -> int:
        return self.turn

    async def on_message(self, turn: int, text: str) -> None:
        self.turn = turn
        await self.say(turn, "Let me see.")
        await super().on_message(turn, text)


class ChunkAfterEnd(WireBrain):
    """Adds an afterthought to a unit it has already closed."""

    async def on_message(self, turn: int, text: str) -> None:
        sid = await self.say(turn, "Sure.")
        await self.send(pb.SpeechChunk(speech_id=sid, text="Oh, and one more thing."))


class TalksOverBargeIn(WireBrain):
    """Ignores the watermark: a dead turn's reply streams to its end."""

    async def on_message(self, turn: int, text: str) -> None:
        words = " ".join(f"word{i}" for i in range(60))
        await self.say(turn, words, stop_when_dead=False, delay_s=0.04)


class ForgesBotReady(WireBrain):
    """Sends RTVI bot-ready, an assertion only Voqalize may make."""

    async def on_start(self) -> None:
        await self.send(pb.RTVIFrame(type=pb.RTVI_TYPE_BOT_READY, data="{}"))
        await super().on_start()


class NamesUnmintedTurn(WireBrain):
    """Puts its follow-up on the next turn, which Voqalize has not minted."""

    async def on_message(self, turn: int, text: str) -> None:
        await super().on_message(turn, text)
        await self.say(turn + 1, "And one more thing.")


class OpensSilentUnits(WireBrain):
    """Opens a unit for a hop that only called a tool: a bracket with nothing in it. Legal
    on the wire (it gets its Finalize); not a broken brain."""

    async def on_message(self, turn: int, text: str) -> None:
        sid = self.mint()
        await self.send(pb.SpeechStart(speech_id=sid, turn_id=turn))
        await self.send(pb.SpeechEnd(speech_id=sid))
        await super().on_message(turn, text)


class ForgesFinalize(WireBrain):
    """Sends a Finalize, a frame only Voqalize sends."""

    async def on_message(self, turn: int, text: str) -> None:
        await self.send(pb.Finalize(speech_id=1, heard_text="I heard it all"))
        await super().on_message(turn, text)


BAD_BRAINS: dict[str, type[WireBrain]] = {
    "reuses_ids": ReusesSpeechIds,
    "chunk_after_end": ChunkAfterEnd,
    "talks_over_barge_in": TalksOverBargeIn,
    "forges_bot_ready": ForgesBotReady,
    "names_unminted_turn": NamesUnmintedTurn,
    "forges_finalize": ForgesFinalize,
}


@dataclass
class WireServer:
    """A running wire-brain server on loopback."""

    server: Server
    port: int

    async def close(self) -> None:
        self.server.close()
        await self.server.wait_closed()


async def serve_wire_brain(brain: type[WireBrain]) -> WireServer:
    """Serve ``brain`` on a free loopback port (any path; one session per socket)."""

    async def handler(ws: ServerConnection) -> None:
        await brain(ws).run()

    server = await serve(handler, "127.0.0.1", 0)
    return WireServer(server, server.sockets[0].getsockname()[1])


@contextlib.contextmanager
def served_in_thread(brain: type[WireBrain]) -> Iterator[str]:
    """Serve ``brain`` from a thread of its own (for a ``sandbox`` process to dial); yields
    its URL."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    servers: list[WireServer] = []

    def run() -> None:
        asyncio.set_event_loop(loop)
        servers.append(loop.run_until_complete(serve_wire_brain(brain)))
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(10), f"{brain.__name__} did not start"
    try:
        yield f"ws://127.0.0.1:{servers[0].port}/brain"
    finally:
        asyncio.run_coroutine_threadsafe(servers[0].close(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
