"""A raw-frame Voqalize for SDK tests: it feeds pb envelopes to a BrainConnection and
keeps every envelope the brain sends back. Other SDK and brain tests import it; the
tests here pin the harness's own behaviour.

Tests wait for what proves their point, never for the clock: a frame on the wire
(:meth:`Voqalize.until`), a condition (:func:`eventually`), or the harness's probe
(:meth:`Voqalize.sync`). The probe is an RTVI ui-event fed like any frame: it is
dispatched after everything fed before it, and its answer leaves through the SDK's one
writer after everything queued before it. So once it is back, the brain has handled
what came before (the Finalizes then deliverable included), and what it said in answer
is on the wire: nothing sent after that can belong to the earlier frames. Speaking
callbacks run beside the dispatcher, so wait for their frames, or for what they did.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable
from typing import Any

from google.protobuf.message import Message

from sandbox.sdk import (
    Brain,
    BrainConnection,
    Error,
    Finalize,
    RTVIFrame,
    Session,
    Speech,
    UserIdle,
    UserMessage,
)
from sandbox.wire import envelope, pb

BOTH_CAPABILITIES = (pb.CAPABILITY_SPEECH_CANCEL, pb.CAPABILITY_TURN_STEPS)
#: How long any wait of the harness allows before it fails the test: generous, since it
#: only bounds a wait for an event and never stands in for one.
WAIT_S = 5.0
#: The key the harness's probes carry, in and out.
_PROBE = "voqalize-harness-probe"


async def eventually(check: Callable[[], bool], timeout: float = WAIT_S) -> None:
    """Wait until ``check()`` holds; fail the test if it does not within ``timeout``."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.001)


def _probe_number(data: object) -> int | None:
    if isinstance(data, dict) and isinstance(data.get(_PROBE), int):
        return int(data[_PROBE])
    return None


def _probe_answered(env: pb.Envelope) -> int | None:
    """The number of the probe this envelope answers, if it is a probe's answer."""
    if env.WhichOneof("body") != "rtvi" or env.rtvi.type != pb.RTVI_TYPE_SERVER_MESSAGE:
        return None
    return _probe_number(json.loads(env.rtvi.data))


class _Probed(Brain):
    """The brain under test, with the harness's probes answered in front of it.

    Every callback goes straight to the brain, which returns its own object to the SDK
    (a speaking callback that is not an async generator reaches the SDK as it is). Only
    a probe never reaches the brain: it is answered here with a server-message carrying
    its number. ``on_session_start`` sends probe 0 as it begins, behind the greeting.
    """

    def __init__(self, brain: Brain, dispatched: Callable[[int], None]) -> None:
        self._brain = brain
        self._dispatched = dispatched

    def greet(self, session: Session) -> Coroutine[Any, Any, str | None]:
        return self._brain.greet(session)

    async def on_session_start(self, session: Session) -> None:
        session.send_rtvi("server-message", {_PROBE: 0})
        await self._brain.on_session_start(session)

    def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        return self._brain.on_user_message(session, msg)

    def on_user_idle(self, session: Session, idle: UserIdle) -> AsyncIterator[Speech]:
        return self._brain.on_user_idle(session, idle)

    def on_rtvi(self, session: Session, frame: RTVIFrame) -> Coroutine[Any, Any, None]:
        number = _probe_number(frame.data)
        if frame.type == "ui-event" and number is not None:
            return self._answer(session, number)
        return self._brain.on_rtvi(session, frame)

    def on_finalize(self, session: Session, fin: Finalize) -> Coroutine[Any, Any, None]:
        return self._brain.on_finalize(session, fin)

    def on_error(self, session: Session, err: Error) -> Coroutine[Any, Any, None]:
        return self._brain.on_error(session, err)

    async def _answer(self, session: Session, number: int) -> None:
        self._dispatched(number)
        session.send_rtvi("server-message", {_PROBE: number})


def describe(env: pb.Envelope) -> str:
    """A compact, comparable spelling of one envelope the brain sent."""
    arm = env.WhichOneof("body")
    if arm == "speech_start":
        return f"start {env.speech_start.speech_id} turn {env.speech_start.turn_id}"
    if arm == "speech_chunk":
        return f"chunk {env.speech_chunk.speech_id} {env.speech_chunk.text!r}"
    if arm == "speech_end":
        return f"end {env.speech_end.speech_id}"
    if arm == "speech_cancel":
        return f"cancel {env.speech_cancel.speech_id}"
    if arm == "error":
        return f"error {pb.ErrorCode.Name(env.error.code)} fatal={env.error.fatal}"
    return str(arm)


class Voqalize:
    """Plays Voqalize against one brain with raw frames; ``sent`` is what the brain sent."""

    def __init__(self, brain: Brain) -> None:
        self.brain = brain
        self.sent: list[pb.Envelope] = []
        #: Cleared to hold the transport (frames queue up in the SDK); set to let them go.
        self.flowing = asyncio.Event()
        self.flowing.set()
        #: The envelope the SDK is handing to the held transport, while it waits there.
        self.held: pb.Envelope | None = None
        self.turn = 0
        #: Units this Voqalize has sent a Finalize for.
        self.finalized: set[int] = set()
        loop = asyncio.get_running_loop()
        self._probes = 0
        self._dispatched: dict[int, asyncio.Future[None]] = {}
        self._written: dict[int, asyncio.Future[None]] = {0: loop.create_future()}
        self.conn = BrainConnection(
            _Probed(brain, self._on_dispatched), self._send, session_id="s-1"
        )

    async def _send(self, env: pb.Envelope) -> None:
        if not self.flowing.is_set():
            self.held = env
            await self.flowing.wait()
            self.held = None
        number = _probe_answered(env)
        if number is None:
            self.sent.append(env)
        elif not self._written[number].done():
            self._written[number].set_result(None)

    def _on_dispatched(self, number: int) -> None:
        if not self._dispatched[number].done():
            self._dispatched[number].set_result(None)

    async def _reach(self, waiter: asyncio.Future[None], what: str, timeout: float) -> None:
        """Wait for ``waiter``, or for the session to be over (then nothing more comes)."""
        closed = asyncio.ensure_future(self.conn.wait_closed())
        try:
            done, _ = await asyncio.wait(
                {waiter, closed}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            closed.cancel()
        if not done:
            raise AssertionError(f"{what}: not within {timeout} s")

    async def _probe(self) -> int:
        self._probes += 1
        number = self._probes
        loop = asyncio.get_running_loop()
        self._dispatched[number] = loop.create_future()
        self._written[number] = loop.create_future()
        data = json.dumps({_PROBE: number})
        await self.feed(pb.RTVIFrame(type=pb.RTVI_TYPE_UI_EVENT, data=data))
        return number

    async def sync(self, timeout: float = WAIT_S) -> None:
        """Return once the brain has handled every frame fed before, and what it queued
        for the wire by then has been sent (or the session is over)."""
        number = await self._probe()
        await self._reach(self._written[number], f"probe {number} answered", timeout)

    async def dispatched(self, timeout: float = WAIT_S) -> None:
        """Return once every frame fed before has been dispatched (the wire may be held)."""
        number = await self._probe()
        await self._reach(self._dispatched[number], f"probe {number} dispatched", timeout)

    async def start(
        self,
        *,
        capabilities: Iterable[int] = BOTH_CAPABILITIES,
        wire_version: int = 3,
        init: str = "",
    ) -> None:
        """Send SessionStart (turn 1); return once the greeting (if any) is on the wire and
        ``on_session_start`` has begun, or the session was refused."""
        self.turn = 1
        start = pb.SessionStart(turn_id=1, session_id="s-1", init=init, wire_version=wire_version)
        start.capabilities.extend(capabilities)  # type: ignore[arg-type]  # unknown ones too
        await self.feed(start)
        await self._reach(self._written[0], "the session's start", WAIT_S)

    async def feed(self, body: Message) -> None:
        """Feed one body message (or a whole Envelope)."""
        env = body if isinstance(body, pb.Envelope) else envelope(body)
        await self.conn.feed(env)

    async def say(self, text: str) -> int:
        """A committed caller turn; returns its turn id."""
        self.turn += 1
        await self.feed(pb.UserMessage(turn_id=self.turn, text=text))
        return self.turn

    async def idle(self, level: int = 1, idle_ms: int = 8000) -> int:
        """An idle turn; returns its turn id."""
        self.turn += 1
        await self.feed(pb.UserIdle(turn_id=self.turn, level=level, idle_ms=idle_ms))
        return self.turn

    async def interrupt(self, through_turn: int) -> None:
        """The caller barged in: turns up to ``through_turn`` are dead."""
        await self.feed(pb.Interruption(through_turn=through_turn))

    async def finalize(self, speech_id: int, heard: str) -> None:
        """Report what was heard of one unit."""
        self.finalized.add(speech_id)
        await self.feed(pb.Finalize(speech_id=speech_id, heard_text=heard))

    def log(self, *arms: str) -> list[str]:
        """What the brain sent, described; only the given arms if any are named."""
        return [describe(e) for e in self.sent if not arms or e.WhichOneof("body") in arms]

    def speech(self) -> list[str]:
        """The speech frames the brain sent, described."""
        return self.log("speech_start", "speech_chunk", "speech_end", "speech_cancel")

    def of(self, arm: str) -> list[pb.Envelope]:
        """Every envelope of one arm the brain sent."""
        return [e for e in self.sent if e.WhichOneof("body") == arm]

    def text_of(self, speech_id: int) -> str:
        """Everything relayed for one unit."""
        return "".join(
            e.speech_chunk.text
            for e in self.of("speech_chunk")
            if e.speech_chunk.speech_id == speech_id
        )

    async def until(self, arm: str, count: int = 1, timeout: float = WAIT_S) -> list[pb.Envelope]:
        """Wait until the brain has sent ``count`` envelopes of ``arm``; return them."""
        await eventually(lambda: len(self.of(arm)) >= count, timeout)
        return self.of(arm)

    async def play_out(self) -> None:
        """Finalize every unit the brain ended, as fully heard, that has no Finalize yet."""
        for env in self.of("speech_end"):
            sid = env.speech_end.speech_id
            if sid not in self.finalized:
                await self.finalize(sid, self.text_of(sid))
        await self.sync()


class _Quiet(Brain):
    def __init__(self) -> None:
        self.frames: list[RTVIFrame] = []
        self.finals: list[Finalize] = []

    async def greet(self, session: Session) -> str:
        return "Hello."

    async def on_rtvi(self, session: Session, frame: RTVIFrame) -> None:
        self.frames.append(frame)

    async def on_finalize(self, session: Session, fin: Finalize) -> None:
        self.finals.append(fin)


async def test_harness_sees_the_greeting_and_plays_it_out() -> None:
    brain = _Quiet()
    v = Voqalize(brain)
    await v.start()
    assert v.speech() == ["start 1 turn 1", "chunk 1 'Hello.'", "end 1"]
    await v.play_out()
    assert v.finalized == {1}
    assert brain.finals == [Finalize(1, "Hello.", "Hello.")]  # play_out waits for on_finalize
    await v.play_out()  # idempotent: one Finalize per unit
    assert v.finalized == {1}


async def test_probes_reach_neither_the_brain_nor_the_log() -> None:
    brain = _Quiet()
    v = Voqalize(brain)
    await v.start()
    await v.feed(pb.RTVIFrame(type=pb.RTVI_TYPE_UI_EVENT, data='{"tab": 2}'))
    await v.sync()
    await v.dispatched()
    assert brain.frames == [RTVIFrame(type="ui-event", data={"tab": 2}, id=None)]
    assert v.log() == ["start 1 turn 1", "chunk 1 'Hello.'", "end 1"]


async def test_holding_the_transport_queues_frames() -> None:
    v = Voqalize(_Quiet())
    v.flowing.clear()
    await v.feed(pb.SessionStart(turn_id=1, session_id="s-1", wire_version=3))
    await eventually(lambda: v.held is not None)  # the SDK's writer waits at the transport
    assert v.held is not None and describe(v.held) == "start 1 turn 1"
    assert v.sent == []
    await v.dispatched()  # the session started behind the held transport
    v.flowing.set()
    await v.until("speech_end")
    assert v.held is None
    assert v.log() == ["start 1 turn 1", "chunk 1 'Hello.'", "end 1"]
