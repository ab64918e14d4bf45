"""Barge-in from the brain's end: the watermark, closing dead turns, and the priority lane."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from test_sdk_harness import Voqalize, describe, eventually

from sandbox.sdk import (
    Brain,
    Chunk,
    Error,
    Finalize,
    RTVIFrame,
    Session,
    Speech,
    SpeechEnd,
    SpeechStart,
    UserMessage,
)
from sandbox.wire import pb


class Talker(Brain):
    """Streams a reply piece by piece; waits on ``gate`` before the last piece."""

    def __init__(self, pieces: tuple[str, ...] = ("One. ", "Two. ", "Three.")) -> None:
        self.pieces = pieces
        self.gate = asyncio.Event()
        self.began: list[str] = []
        self.cleaned: list[str] = []
        self.finals: list[Finalize] = []
        self.rtvi_gate = asyncio.Event()
        self.rtvi_seen = 0
        #: ``cleaned`` as it stood when the slow on_rtvi returned.
        self.cleaned_when_rtvi_returned: list[str] | None = None

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        self.began.append(msg.text)
        try:
            yield SpeechStart()
            for piece in self.pieces[:-1]:
                yield Chunk(piece)
            await self.gate.wait()
            yield Chunk(self.pieces[-1])
            yield SpeechEnd()
        finally:
            self.cleaned.append(msg.text)

    async def on_finalize(self, session: Session, fin: Finalize) -> None:
        self.finals.append(fin)

    async def on_rtvi(self, session: Session, frame: RTVIFrame) -> None:
        self.rtvi_seen += 1
        await self.rtvi_gate.wait()  # a slow callback holding the consumer
        self.cleaned_when_rtvi_returned = list(self.cleaned)


async def test_a_dead_turn_is_closed_and_its_finally_runs() -> None:
    brain = Talker()
    v = Voqalize(brain)
    await v.start()
    turn = await v.say("first")
    await v.until("speech_chunk", 2)
    await v.interrupt(turn)
    await eventually(lambda: brain.cleaned == ["first"])
    await v.until("speech_end")
    brain.gate.set()  # too late: its finally ran, so the generator is over
    await v.sync()
    assert v.speech() == [
        "start 1 turn 2",
        "chunk 1 'One. '",
        "chunk 1 'Two. '",
        "end 1",  # brackets balance even for a dead turn
    ]
    await v.finalize(1, "One.")
    await v.sync()
    assert brain.finals == [Finalize(1, "One.", "One. Two. ")]


async def test_late_chunks_of_a_dead_turn_never_reach_the_wire() -> None:
    brain = Talker(pieces=("a", "b", "c", "d", "e", "f"))
    brain.gate.set()
    v = Voqalize(brain)
    await v.start(capabilities=())
    v.flowing.clear()  # a congested socket: everything queues in the SDK
    turn = await v.say("go")
    await eventually(lambda: brain.cleaned == ["go"])  # the whole reply was generated and queued
    await eventually(lambda: v.held is not None)
    assert v.held is not None and describe(v.held) == "start 1 turn 2"  # at the transport
    await v.interrupt(turn)
    await v.dispatched()  # the watermark has risen while the transport was held
    v.flowing.set()
    await v.until("speech_end")
    # The SpeechStart was already being written when the turn died; nothing after it
    # but the closing bracket goes out.
    assert v.speech() == ["start 1 turn 2", "end 1"]
    await v.finalize(1, "")
    await v.sync()
    assert brain.finals == [Finalize(1, "", "abcdef")]


async def test_the_watermark_only_rises_and_a_unit_killed_at_the_mouth_is_reported() -> None:
    brain = Talker()
    v = Voqalize(brain)
    await v.start()
    await v.say("a")
    t3 = await v.say("b")
    await v.until("speech_chunk", 2)
    await v.interrupt(t3)
    await v.interrupt(2)  # lower: harmless
    await eventually(lambda: sorted(brain.cleaned) == ["a", "b"])
    t4 = await v.say("c")
    await v.until("speech_start", 2)
    # "b" had yielded its SpeechStart (unit 2) and was waiting for "a"'s unit to close
    # when both died: unit 2 never reached the wire, and "c" speaks unit 3 on turn 4.
    assert v.log("speech_start") == ["start 1 turn 2", f"start 3 turn {t4}"]
    await v.finalize(1, "One.")
    await v.sync()
    assert brain.finals == [Finalize(1, "One.", "One. Two. "), Finalize(2, "", "")]


async def test_interruption_overtakes_queued_frames_but_not_the_running_callback() -> None:
    brain = Talker()
    v = Voqalize(brain)
    await v.start()
    t2 = await v.say("live")
    await v.until("speech_chunk", 2)
    # The consumer is now busy in a slow on_rtvi ...
    await v.feed(pb.RTVIFrame(type=pb.RTVI_TYPE_UI_EVENT, data="{}"))
    await eventually(lambda: brain.rtvi_seen == 1)
    # ... while a message is queued behind it, and then the barge-in arrives.
    t3 = await v.say("queued")
    await v.interrupt(t3)
    assert t2 < t3
    brain.rtvi_gate.set()
    await eventually(lambda: brain.cleaned == ["live", "queued"])
    # The running callback was not overtaken: had the Interruption been handled while it
    # ran, "live" would have been stopped (its stop was due before on_rtvi could resume).
    assert brain.cleaned_when_rtvi_returned == []
    await v.sync()
    # The Interruption went first: the queued message's turn was dead on dispatch, so
    # its callback learnt what the caller said but none of its speech left.
    assert brain.began == ["live", "queued"]
    assert v.log("speech_start") == ["start 1 turn 2"]
    assert v.log("speech_end") == ["end 1"]
    # Its swallowed unit is still reported, by the SDK, in order.
    await v.finalize(1, "One. ")
    await v.sync()
    assert brain.finals == [Finalize(1, "One. ", "One. Two. "), Finalize(2, "", "")]


async def test_without_interruption_an_older_turn_keeps_speaking() -> None:
    brain = Talker(pieces=("x", "y"))
    v = Voqalize(brain)
    await v.start()
    await v.say("old")
    await v.until("speech_chunk")
    await v.say("new")
    brain.gate.set()
    await v.until("speech_end", 2)
    assert v.log("speech_start") == ["start 1 turn 2", "start 2 turn 3"]
    assert brain.cleaned == ["old", "new"]


class Stubborn(Brain):
    """Refuses to stop: swallows the close and tries to say more."""

    def __init__(self) -> None:
        self.errors: list[Error] = []
        self.gate = asyncio.Event()

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        yield SpeechStart()
        yield Chunk("I will ")
        with contextlib.suppress(asyncio.CancelledError):  # swallows the cancel, carries on
            await self.gate.wait()
        try:
            yield Chunk("not stop")
        except GeneratorExit:
            yield Chunk("ever")

    async def on_error(self, session: Session, err: Error) -> None:
        self.errors.append(err)


async def test_a_generator_that_will_not_stop_is_stopped_and_reported() -> None:
    brain = Stubborn()
    v = Voqalize(brain)
    await v.start()
    turn = await v.say("go")
    await v.until("speech_chunk")
    await v.interrupt(turn)
    await v.until("speech_end")
    await eventually(lambda: len(brain.errors) == 1)
    assert "did not stop when asked" in brain.errors[0].message
    assert v.speech() == ["start 1 turn 2", "chunk 1 'I will '", "end 1"]
    assert not v.conn.closed
