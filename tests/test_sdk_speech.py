"""Speech from a brain's generators: unit minting, brackets, and what may be yielded."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from test_sdk_harness import Voqalize, eventually

from sandbox.sdk import (
    Brain,
    Chunk,
    Error,
    Finalize,
    Session,
    Speech,
    SpeechChunk,
    SpeechEnd,
    SpeechStart,
    UserIdle,
    UserMessage,
)


class Recorder(Brain):
    """Says two units per message and keeps every SpeechStart it yielded."""

    def __init__(self) -> None:
        self.starts: list[SpeechStart] = []
        self.finals: list[Finalize] = []
        self.errors: list[Error] = []

    async def greet(self, session: Session) -> str:
        return "Welcome."

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        for text in (f"One: {msg.text}.", " Two."):
            start = SpeechStart()
            self.starts.append(start)
            yield start
            yield Chunk(text)
            yield SpeechEnd()

    async def on_finalize(self, session: Session, fin: Finalize) -> None:
        self.finals.append(fin)

    async def on_error(self, session: Session, err: Error) -> None:
        self.errors.append(err)


async def test_greeting_is_one_unit_on_turn_one() -> None:
    v = Voqalize(Recorder())
    await v.start()
    assert v.speech() == ["start 1 turn 1", "chunk 1 'Welcome.'", "end 1"]


async def test_speech_ids_are_minted_per_unit_and_written_back() -> None:
    brain = Recorder()
    v = Voqalize(brain)
    await v.start()
    await v.say("a")
    await v.until("speech_end", 3)
    await v.say("b")
    await v.until("speech_end", 5)
    assert [s.speech_id for s in brain.starts] == [2, 3, 4, 5]
    assert v.log("speech_start") == [
        "start 1 turn 1",
        "start 2 turn 2",
        "start 3 turn 2",
        "start 4 turn 3",
        "start 5 turn 3",
    ]
    assert v.text_of(4) == "One: b."


async def test_finalize_carries_heard_generated_and_the_verdict() -> None:
    brain = Recorder()
    v = Voqalize(brain)
    await v.start()
    await v.say("hello")
    await v.until("speech_end", 3)
    await v.finalize(1, "Welcome.")
    await v.finalize(2, "One:")
    await v.finalize(3, "")
    await v.sync()
    assert brain.finals == [
        Finalize(1, "Welcome.", "Welcome."),
        Finalize(2, "One:", "One: hello."),
        Finalize(3, "", " Two."),
    ]
    assert [f.interrupted for f in brain.finals] == [False, True, True]


async def test_finalizes_are_delivered_in_opening_order() -> None:
    brain = Recorder()
    v = Voqalize(brain)
    await v.start()
    await v.say("x")
    await v.until("speech_end", 3)
    await v.finalize(3, " Two.")  # a broken peer's order
    await v.sync()
    assert brain.finals == []  # held until the older units are reported
    await v.finalize(1, "Welcome.")
    await v.finalize(2, "One: x.")
    await v.sync()
    assert [f.speech_id for f in brain.finals] == [1, 2, 3]


class Sloppy(Brain):
    """Yields things a mouth cannot say, and leaves units open."""

    def __init__(self) -> None:
        self.errors: list[Error] = []
        self.done = False

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        yield SpeechChunk("lost")  # outside any unit
        yield "a bare string"  # type: ignore[misc]
        yield SpeechStart()
        yield SpeechChunk("first")
        yield SpeechStart()  # while the first is open: the SDK closes it
        yield SpeechChunk("second")
        yield SpeechChunk("")  # nothing to send
        self.done = True  # returns with the second still open: the SDK closes it

    async def on_error(self, session: Session, err: Error) -> None:
        self.errors.append(err)


async def test_illegal_yields_are_reported_not_fatal() -> None:
    brain = Sloppy()
    v = Voqalize(brain)
    await v.start()
    await v.say("go")
    await v.until("speech_end", 2)
    await v.sync()  # the mistakes were reported before the last SpeechEnd was queued
    assert brain.done
    assert v.speech() == [
        "start 1 turn 2",
        "chunk 1 'first'",
        "end 1",
        "start 2 turn 2",
        "chunk 2 'second'",
        "end 2",
    ]
    assert [e.origin for e in brain.errors] == ["sdk", "sdk", "sdk"]
    messages = " | ".join(e.message for e in brain.errors)
    assert "outside an open unit" in messages
    assert "may yield only SpeechStart(), SpeechChunk(text) and SpeechEnd()" in messages
    assert "still open" in messages
    assert v.of("error") == []  # the SDK caught it all: nothing wrong on the wire
    assert not v.conn.closed


class NotAGenerator(Brain):
    def __init__(self) -> None:
        self.errors: list[Error] = []

    async def on_user_idle(  # type: ignore[override]
        self, session: Session, idle: UserIdle
    ) -> None:
        return None

    async def on_error(self, session: Session, err: Error) -> None:
        self.errors.append(err)


async def test_a_speaking_callback_that_is_not_a_generator_is_a_clear_error() -> None:
    brain = NotAGenerator()
    v = Voqalize(brain)
    await v.start()
    await v.idle()
    await eventually(lambda: len(brain.errors) == 1)
    await v.sync()  # its one mistake has ended its task: nothing more comes of the idle
    assert len(brain.errors) == 1
    assert "must be an async generator" in brain.errors[0].message
    assert v.speech() == []


class Raises(Brain):
    def __init__(self) -> None:
        self.errors: list[Error] = []
        self.cleaned = False

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        try:
            yield SpeechStart()
            yield Chunk("Let me ")
            raise ValueError("the model fell over")
        finally:
            self.cleaned = True

    async def on_error(self, session: Session, err: Error) -> None:
        self.errors.append(err)


async def test_a_raising_callback_closes_its_unit_and_tells_both_sides() -> None:
    brain = Raises()
    v = Voqalize(brain)
    await v.start()
    await v.say("hi")
    await v.until("error")
    await v.sync()
    assert brain.cleaned
    assert v.speech() == ["start 1 turn 2", "chunk 1 'Let me '", "end 1"]
    assert v.log("error") == ["error ERROR_CODE_INTERNAL fatal=False"]
    assert "ValueError: the model fell over" in v.of("error")[0].error.message
    assert [(e.code, e.origin) for e in brain.errors] == [("INTERNAL", "sdk")]
    await v.say("again")  # the session goes on
    await v.until("speech_start", 2)


class TwoTurns(Brain):
    """The first turn speaks slowly; the second is quick."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.starts: list[SpeechStart] = []

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        start = SpeechStart()
        self.starts.append(start)
        yield start
        yield Chunk(msg.text)
        if msg.text == "slow":
            await self.release.wait()
            yield Chunk(" done")
        yield SpeechEnd()


async def test_a_newer_turn_waits_for_the_open_unit_and_units_never_interleave() -> None:
    brain = TwoTurns()
    v = Voqalize(brain)
    await v.start()
    await v.say("slow")
    await v.until("speech_chunk")
    await v.say("quick")
    # Its SpeechStart has its unit: the SDK took it, and would have queued it at once
    # but for the open unit. The probe's answer is queued after anything queued by then.
    await eventually(lambda: len(brain.starts) == 2 and brain.starts[1].speech_id == 2)
    await v.sync()
    assert v.speech() == ["start 1 turn 2", "chunk 1 'slow'"]
    brain.release.set()
    await v.until("speech_end", 2)
    assert v.speech() == [
        "start 1 turn 2",
        "chunk 1 'slow'",
        "chunk 1 ' done'",
        "end 1",
        "start 2 turn 3",
        "chunk 2 'quick'",
        "end 2",
    ]
