"""Brains that misbehave on purpose, one behaviour each, served over a real WebSocket.

They exist to show what the sandbox does with a half-finished brain: each greets like a
brain should, then answers the caller's first line with exactly one misbehaviour, and
every later line properly (so a test can see the call go on). They are written straight
against the wire, not on the SDK, which would refuse to break most of these rules.

``python -m sandbox.brains.hostile NAME --port 8765`` serves one (``--list`` names them);
``sandbox run --brain ws://127.0.0.1:8765/brain`` then meets it. The test suite
(``tests/test_hostile_brains.py``) and the figures (``python -m sandbox_bench.hostile``)
use :func:`serve_hostile`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from sandbox.option_values import port
from sandbox.wire import decode, encode, pb

GREETING = "Hello, I am a brain that misbehaves on purpose."
#: What every line after the first is answered with: the call went on.
ANSWER = "I am still here and answering properly."


@dataclass(frozen=True)
class Hostility:
    """How hard a brain misbehaves: sizes and rates for the behaviours that take them."""

    chunks: int = 20_000  # flood: how many chunks in the one unit
    per_second: int = 10_000  # flood, endless: frames a second (0: as fast as it can send)
    chunk_text: str = "word "  # flood, endless: each chunk's text
    huge_bytes: int = 10 * 2**20  # huge_chunk: the one chunk's size
    future_turn: int = 1_000_000  # future_turns: how far ahead of the current turn
    garbage_frames: int = 300_000  # garbage: how many one-byte non-envelope frames
    huge_chunks: int = 30  # huge: how many oversized chunks in the one unit
    huge_chunk_bytes: int = 15_000_000  # huge: each chunk's size


class HostileBrain:
    """One session of a misbehaving brain: the greeting, then ``behaviour`` on turn 2."""

    def __init__(self, ws: ServerConnection, behaviour: str, how: Hostility) -> None:
        self.ws = ws
        self.how = how
        self._misbehave: Callable[[int], Coroutine[Any, Any, None]] = getattr(self, f"_{behaviour}")
        self._next_id = 0
        self._answered = 0
        self._tasks: set[asyncio.Task[None]] = set()

    async def send(self, body: Message) -> None:
        """Put one body on the wire in its envelope."""
        await self.ws.send(encode(body))

    async def run(self) -> None:
        """Read the session; each stimulus gets its answer in a task of its own, so a brain
        busy misbehaving still reads (and a never-ending one ignores Interruption)."""
        with contextlib.suppress(ConnectionClosed):
            async for message in self.ws:
                env = decode(message)
                arm = env.WhichOneof("body")
                if arm == "session_start":
                    self._spawn(self._say(env.session_start.turn_id, GREETING))
                elif arm == "user_message":
                    self._answered += 1
                    turn = env.user_message.turn_id
                    first = self._answered == 1
                    self._spawn(self._misbehave(turn) if first else self._say(turn, ANSWER))
                elif arm == "end":
                    break
        for task in self._tasks:
            task.cancel()

    # ------------------------------------------------------------ behaviours

    async def _stall_after_start(self, turn: int) -> None:
        """Opens a unit and never sends another frame for it."""
        await self.send(pb.SpeechStart(speech_id=self._mint(), turn_id=turn))

    async def _flood(self, turn: int) -> None:
        """One unit of ``chunks`` small chunks at ``per_second``, then its SpeechEnd."""
        sid = self._mint()
        await self.send(pb.SpeechStart(speech_id=sid, turn_id=turn))
        await self._stream(sid, self.how.chunks)
        await self.send(pb.SpeechEnd(speech_id=sid))

    async def _huge_chunk(self, turn: int) -> None:
        """One chunk of ``huge_bytes``, then a sentence and the SpeechEnd."""
        sid = self._mint()
        await self.send(pb.SpeechStart(speech_id=sid, turn_id=turn))
        await self.send(pb.SpeechChunk(speech_id=sid, text="x" * self.how.huge_bytes))
        await self.send(pb.SpeechChunk(speech_id=sid, text="Sorry, that was a lot."))
        await self.send(pb.SpeechEnd(speech_id=sid))

    async def _never_ends(self, turn: int) -> None:
        """A unit with a sentence in it and no SpeechEnd, ever."""
        sid = self._mint()
        await self.send(pb.SpeechStart(speech_id=sid, turn_id=turn))
        await self.send(pb.SpeechChunk(speech_id=sid, text="This unit never ends."))

    async def _closes_mid_unit(self, turn: int) -> None:
        """Half a sentence, then the socket closes under it."""
        sid = self._mint()
        await self.send(pb.SpeechStart(speech_id=sid, turn_id=turn))
        await self.send(pb.SpeechChunk(speech_id=sid, text="I was just about to "))
        await asyncio.sleep(0.3)  # long enough for a word or two to play
        await self.ws.close(1011, "the brain fell over mid-unit")

    async def _future_turns(self, turn: int) -> None:
        """A whole unit and a TurnStep for a turn far ahead, then the real answer."""
        ahead = turn + self.how.future_turn
        sid = self._mint()
        await self.send(pb.SpeechStart(speech_id=sid, turn_id=ahead))
        await self.send(pb.SpeechChunk(speech_id=sid, text="An answer from the future."))
        await self.send(pb.SpeechEnd(speech_id=sid))
        await self.send(pb.TurnStep(turn_id=ahead, kind="model", name="oracle"))
        await self._say(turn, ANSWER)

    async def _silent(self, turn: int) -> None:
        """Nothing: this brain never sends a frame (its greeting is skipped too)."""

    async def _text_messages(self, turn: int) -> None:
        """Its answer as text WebSocket messages (JSON, as a web developer might), then the
        same answer as it should be."""
        await self.ws.send(f'{{"type": "speech_start", "turn_id": {turn}}}')
        await self.ws.send('{"type": "speech_chunk", "text": "Is this how it works?"}')
        await self._say(turn, ANSWER)

    async def _endless(self, turn: int) -> None:
        """Valid chunks at ``per_second`` for ever, whatever the caller says: Interruption is
        ignored, and each later line gets its own endless unit beside the old one."""
        self._answered = 0  # so every line is answered the same way
        sid = self._mint()
        await self.send(pb.SpeechStart(speech_id=sid, turn_id=turn))
        await self._stream(sid, None)

    async def _garbage(self, turn: int) -> None:
        """``garbage_frames`` one-byte messages that are no envelope, then the answer."""
        for _ in range(self.how.garbage_frames):
            await self.ws.send(b"\xff")  # a field tag with no field: never an envelope
        await self._say(turn, ANSWER)

    async def _huge(self, turn: int) -> None:
        """One unit of ``huge_chunks`` chunks of ``huge_chunk_bytes`` each, then a sentence
        and the SpeechEnd."""
        sid = self._mint()
        await self.send(pb.SpeechStart(speech_id=sid, turn_id=turn))
        frame = encode(pb.SpeechChunk(speech_id=sid, text="x" * self.how.huge_chunk_bytes))
        for _ in range(self.how.huge_chunks):
            await self.ws.send(frame)
        await self.send(pb.SpeechChunk(speech_id=sid, text="Sorry, that was a lot."))
        await self.send(pb.SpeechEnd(speech_id=sid))

    async def _never_reads(self, turn: int) -> None:
        """Stops reading its socket: whatever the call sends after the first line (pings
        too) waits in the call's buffers and the kernel's."""
        self.ws.transport.pause_reading()

    async def _huge_errors(self, turn: int) -> None:
        """``huge_chunks`` non-fatal Errors of ``huge_chunk_bytes`` of text each, then the
        answer."""
        text = "e" * self.how.huge_chunk_bytes
        frame = encode(pb.Error(code=pb.ERROR_CODE_INTERNAL, message=text, fatal=False))
        for _ in range(self.how.huge_chunks):
            await self.ws.send(frame)
        await self._say(turn, ANSWER)

    async def _many_units(self, turn: int) -> None:
        """A new whole unit for the line's turn (start, a word, end) for ever, at
        ``per_second`` frames: each a unit the call owes a Finalize."""
        self._answered = 0
        await self._forever(
            lambda sid: (
                pb.SpeechStart(speech_id=sid, turn_id=turn),
                pb.SpeechChunk(speech_id=sid, text=self.how.chunk_text),
                pb.SpeechEnd(speech_id=sid),
            )
        )

    async def _endless_steps(self, turn: int) -> None:
        """TurnSteps for the line's turn for ever, at ``per_second`` (a trace gone mad)."""
        self._answered = 0
        await self._forever(lambda n: (pb.TurnStep(turn_id=turn, kind="tool", name=f"t{n}"),))

    async def _endless_rtvi(self, turn: int) -> None:
        """RTVI server-messages to the app for ever, at ``per_second``."""
        self._answered = 0
        await self._forever(
            lambda n: (pb.RTVIFrame(type=pb.RTVI_TYPE_SERVER_MESSAGE, data=f'{{"n": {n}}}'),)
        )

    async def _unknown_ids(self, turn: int) -> None:
        """Chunks for units never opened, each a new id, for ever, at ``per_second``."""
        self._answered = 0
        await self._forever(
            lambda n: (pb.SpeechChunk(speech_id=10**9 + n, text=self.how.chunk_text),)
        )

    async def _requests(self, turn: int) -> None:
        """Requests naming no operation for ever, at ``per_second``: each is owed a Response
        (REJECTED), which 001 requires the call to send."""
        self._answered = 0
        await self._forever(lambda n: (pb.Request(request_id=n),))

    async def _open_units(self, turn: int) -> None:
        """SpeechStarts for the line's turn for ever, at ``per_second``, none ever closed:
        each a unit the call opens and owes a Finalize (001 sets no limit on them)."""
        self._answered = 0
        await self._forever(lambda sid: (pb.SpeechStart(speech_id=sid, turn_id=turn),))

    # ------------------------------------------------------------- plumbing

    async def _forever(self, frames: Callable[[int], tuple[Message, ...]]) -> None:
        """``frames(n)`` for n = a fresh id each time, for ever, paced as :meth:`_paced`."""
        await self._paced(encode(body) for _ in itertools.count() for body in frames(self._mint()))

    async def _say(self, turn: int, text: str) -> None:
        if self._misbehave == self._silent:
            return
        sid = self._mint()
        for body in (
            pb.SpeechStart(speech_id=sid, turn_id=turn),
            pb.SpeechChunk(speech_id=sid, text=text),
            pb.SpeechEnd(speech_id=sid),
        ):
            await self.send(body)

    async def _stream(self, sid: int, count: int | None) -> None:
        """``count`` chunks of unit ``sid`` (None: for ever), paced as :meth:`_paced`."""
        frame = encode(pb.SpeechChunk(speech_id=sid, text=self.how.chunk_text))
        await self._paced(
            itertools.repeat(frame) if count is None else itertools.repeat(frame, count)
        )

    async def _paced(self, frames: Iterator[bytes]) -> None:
        """Send ``frames`` paced in batches to ``per_second``; flat out, it still yields between
        batches, so the brain reads its socket while it streams (a send to a reader that
        keeps up never waits, and would starve it)."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        for sent, frame in enumerate(frames, 1):
            await self.ws.send(frame)
            if sent % 100 == 0:
                rate = self.how.per_second
                ahead = start + sent / rate - loop.time() if rate else 0.0
                await asyncio.sleep(max(0.0, ahead))

    def _mint(self) -> int:
        self._next_id += 1
        return self._next_id

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        """A behaviour ended; the connection closing under it is how most of them end."""
        self._tasks.discard(task)
        if not task.cancelled() and not isinstance(task.exception(), ConnectionClosed | None):
            task.result()  # anything else is a bug here: the loop logs it


#: Every behaviour by name, with what it does.
BEHAVIOURS: dict[str, str] = {
    name.removeprefix("_"): (getattr(HostileBrain, name).__doc__ or "").split("\n")[0]
    for name in (
        "_stall_after_start",
        "_flood",
        "_huge_chunk",
        "_never_ends",
        "_closes_mid_unit",
        "_future_turns",
        "_silent",
        "_text_messages",
        "_endless",
        "_garbage",
        "_huge",
        "_never_reads",
        "_huge_errors",
        "_many_units",
        "_endless_steps",
        "_endless_rtvi",
        "_unknown_ids",
        "_requests",
        "_open_units",
    )
}


@contextlib.asynccontextmanager
async def serve_hostile(
    behaviour: str, how: Hostility | None = None, *, port: int = 0
) -> AsyncIterator[str]:
    """Serve the misbehaving brain ``behaviour`` on loopback; yields the URL to dial."""
    if behaviour not in BEHAVIOURS:
        raise ValueError(f"unknown behaviour {behaviour!r}: one of {', '.join(BEHAVIOURS)}")
    hostility = how or Hostility()

    async def handler(ws: ServerConnection) -> None:
        await HostileBrain(ws, behaviour, hostility).run()

    # No size limit on what it receives: it is the one misbehaving, not Voqalize. No pings
    # of its own either: a flood's Responses fill the call's side of the socket, so the
    # call's pong came late and the brain's keepalive dropped the call after ~54 s, before
    # the bench's minute was up (the call's own keepalive is what is measured).
    async with serve(handler, "127.0.0.1", port, max_size=None, ping_interval=None) as server:
        bound = next(iter(server.sockets)).getsockname()[1]
        yield f"ws://127.0.0.1:{bound}/brain"


@contextlib.contextmanager
def hostile_process(behaviour: str, *args: str) -> Iterator[str]:
    """A hostile brain in a process of its own (``python -m sandbox.brains.hostile``), so
    its sending does not share the call's event loop or its memory; yields its URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "sandbox.brains.hostile", behaviour, "--port", "0", *args],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().rsplit(" ", 1)[-1].strip()
    finally:
        proc.terminate()
        proc.wait(10)


def main(argv: list[str] | None = None) -> int:
    """Serve one misbehaving brain until Ctrl-C."""
    parser = argparse.ArgumentParser(prog="python -m sandbox.brains.hostile")
    parser.add_argument("behaviour", nargs="?", choices=list(BEHAVIOURS))
    parser.add_argument("--port", type=port(any_free=True), default=8765, help="0: any free port")
    parser.add_argument("--chunks", type=int, default=Hostility.chunks, help="flood's chunks")
    parser.add_argument(
        "--per-second", type=int, default=Hostility.per_second, help="flood's rate (0: flat out)"
    )
    parser.add_argument(
        "--garbage-frames", type=int, default=Hostility.garbage_frames, help="garbage's frames"
    )
    parser.add_argument(
        "--huge-chunks", type=int, default=Hostility.huge_chunks, help="huge's chunks"
    )
    parser.add_argument("--list", action="store_true", help="name the behaviours")
    args = parser.parse_args(argv)
    if args.list or args.behaviour is None:
        for name, does in BEHAVIOURS.items():
            print(f"{name:18} {does}")
        return 0

    async def forever() -> None:
        how = Hostility(
            chunks=args.chunks,
            per_second=args.per_second,
            garbage_frames=args.garbage_frames,
            huge_chunks=args.huge_chunks,
        )
        async with serve_hostile(args.behaviour, how, port=args.port) as url:
            print(f"serving {args.behaviour} on {url}", flush=True)
            await asyncio.Future()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(forever())
    return 0


if __name__ == "__main__":
    sys.exit(main())
