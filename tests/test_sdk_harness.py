"""A raw-frame Voqalize for SDK tests: it feeds pb envelopes to a BrainConnection and
keeps every envelope the brain sends back. Other SDK and brain tests import it; the
tests here pin the harness's own behaviour.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable

from google.protobuf.message import Message

from sandbox.sdk import Brain, BrainConnection, Session
from sandbox.wire import envelope, pb

BOTH_CAPABILITIES = (pb.CAPABILITY_SPEECH_CANCEL, pb.CAPABILITY_TURN_STEPS)


async def eventually(check: Callable[[], bool], timeout: float = 2.0) -> None:
    """Wait until ``check()`` holds; fail the test if it does not within ``timeout``."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.001)


async def settle(rounds: int = 20) -> None:
    """Let every ready task run a few steps (no timers involved)."""
    for _ in range(rounds):
        await asyncio.sleep(0)


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
        self.turn = 0
        #: Units this Voqalize has sent a Finalize for.
        self.finalized: set[int] = set()
        self.conn = BrainConnection(brain, self._send, session_id="s-1")

    async def _send(self, env: pb.Envelope) -> None:
        await self.flowing.wait()
        self.sent.append(env)

    async def start(
        self,
        *,
        capabilities: Iterable[int] = BOTH_CAPABILITIES,
        wire_version: int = 3,
        init: str = "",
    ) -> None:
        """Send SessionStart (turn 1) and let the greeting out."""
        self.turn = 1
        start = pb.SessionStart(turn_id=1, session_id="s-1", init=init, wire_version=wire_version)
        start.capabilities.extend(capabilities)  # type: ignore[arg-type]  # unknown ones too
        await self.feed(start)
        await settle()

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

    async def until(self, arm: str, count: int = 1, timeout: float = 2.0) -> list[pb.Envelope]:
        """Wait until the brain has sent ``count`` envelopes of ``arm``; return them."""
        await eventually(lambda: len(self.of(arm)) >= count, timeout)
        return self.of(arm)

    async def play_out(self) -> None:
        """Finalize every unit the brain ended, as fully heard, that has no Finalize yet."""
        for env in self.of("speech_end"):
            sid = env.speech_end.speech_id
            if sid not in self.finalized:
                await self.finalize(sid, self.text_of(sid))
        await settle()


class _Quiet(Brain):
    async def greet(self, session: Session) -> str:
        return "Hello."


async def test_harness_sees_the_greeting_and_plays_it_out() -> None:
    v = Voqalize(_Quiet())
    await v.start()
    assert v.speech() == ["start 1 turn 1", "chunk 1 'Hello.'", "end 1"]
    await v.play_out()
    assert v.finalized == {1}
    await v.play_out()  # idempotent: one Finalize per unit
    assert v.finalized == {1}


async def test_holding_the_transport_queues_frames() -> None:
    v = Voqalize(_Quiet())
    v.flowing.clear()
    await v.start()
    assert v.sent == []
    v.flowing.set()
    await v.until("speech_end")
