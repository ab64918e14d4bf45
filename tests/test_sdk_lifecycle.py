"""How a session starts, refuses, ends, and survives a peer that breaks the rules."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from test_sdk_harness import Voqalize, eventually

from sandbox.sdk import Brain, Chunk, Error, Session, Speech, SpeechStart, UserMessage
from sandbox.wire import pb


class Lifecycle(Brain):
    def __init__(self) -> None:
        self.events: list[str] = []
        self.errors: list[Error] = []
        self.session: Session | None = None
        self.hold = asyncio.Event()

    async def greet(self, session: Session) -> str:
        self.events.append("greet")
        return "Hello."

    async def on_session_start(self, session: Session) -> None:
        self.session = session
        self.events.append("start")

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        try:
            yield SpeechStart()
            yield Chunk("thinking")
            await self.hold.wait()
        finally:
            self.events.append(f"finally {msg.text}")

    async def on_error(self, session: Session, err: Error) -> None:
        self.errors.append(err)


async def test_the_session_carries_what_session_start_said() -> None:
    brain = Lifecycle()
    v = Voqalize(brain)
    await v.start(capabilities=[pb.CAPABILITY_SPEECH_CANCEL, 99], init='{"caller": "Ada"}')
    assert brain.events == ["greet", "start"]  # the greeting is queued before anything else
    s = brain.session
    assert s is not None
    assert (s.session_id, s.init, s.wire_version) == ("s-1", {"caller": "Ada"}, 3)
    assert s.can_cancel_speech and not s.can_report_steps  # 99 is unknown: means nothing


async def test_init_that_is_not_a_json_object_is_empty() -> None:
    brain = Lifecycle()
    v = Voqalize(brain)
    await v.start(init="[1, 2]")
    assert brain.session is not None and brain.session.init == {}


async def test_a_different_wire_version_is_refused_before_the_greeting() -> None:
    for offered in (2, 4):
        brain = Lifecycle()
        v = Voqalize(brain)
        await v.start(wire_version=offered)
        await asyncio.wait_for(v.conn.wait_closed(), 2)
        assert v.log() == ["error ERROR_CODE_VERSION fatal=True", "end"]
        message = v.of("error")[0].error.message
        assert f"version {offered}" in message and "version 3" in message
        assert brain.events == []  # no greeting, no callbacks: nothing else


async def test_a_session_start_for_another_session_is_refused() -> None:
    brain = Lifecycle()
    v = Voqalize(brain)
    await v.feed(pb.SessionStart(turn_id=1, session_id="s-other", wire_version=3))
    await asyncio.wait_for(v.conn.wait_closed(), 2)
    assert v.log() == ["error ERROR_CODE_PROTOCOL fatal=True", "end"]
    assert brain.events == []


async def test_end_from_voqalize_stops_open_turns_and_their_finally_runs() -> None:
    brain = Lifecycle()
    v = Voqalize(brain)
    await v.start()
    await v.say("one")
    await v.until("speech_chunk", 2)
    await v.feed(pb.End())
    await asyncio.wait_for(v.conn.wait_closed(), 2)
    assert brain.events[-1] == "finally one"
    assert v.conn.closed
    sent = len(v.sent)
    await v.say("too late")  # ignored
    await v.sync()  # at once: the session is over, its writer has stopped for good
    assert len(v.sent) == sent


async def test_cancel_overtakes_queued_frames_and_ends_the_session() -> None:
    brain = Lifecycle()
    v = Voqalize(brain)
    await v.start()
    await v.say("one")
    await v.until("speech_chunk", 2)
    await v.say("two")  # queued: the consumer has not run since
    await v.feed(pb.Cancel(reason="caller hung up"))
    await asyncio.wait_for(v.conn.wait_closed(), 2)
    assert brain.events == ["greet", "start", "finally one"]  # "two" never began


async def test_a_fatal_error_reaches_on_error_then_ends_the_session() -> None:
    brain = Lifecycle()
    v = Voqalize(brain)
    await v.start()
    await v.feed(pb.Error(code=pb.ERROR_CODE_TIMEOUT, message="too slow", fatal=False))
    await eventually(lambda: len(brain.errors) == 1)
    assert not v.conn.closed
    await v.feed(pb.Error(code=pb.ERROR_CODE_INTERNAL, message="speech tier down", fatal=True))
    await asyncio.wait_for(v.conn.wait_closed(), 2)
    assert brain.errors == [
        Error("TIMEOUT", "too slow", fatal=False, origin="voqalize"),
        Error("INTERNAL", "speech tier down", fatal=True, origin="voqalize"),
    ]


async def test_frames_before_session_start_are_dropped_silently() -> None:
    brain = Lifecycle()
    v = Voqalize(brain)
    await v.feed(pb.UserMessage(turn_id=2, text="early"))
    await v.feed(pb.Envelope())  # no body
    await v.start()
    await v.sync()
    # Nothing went back before SessionStart: an answer to the early frames would have
    # been queued, and so sent, before the greeting.
    assert v.log() == ["start 1 turn 1", "chunk 1 'Hello.'", "end 1"]
    assert brain.events == ["greet", "start"]


async def test_unexpected_input_is_answered_with_a_clear_error_and_the_session_goes_on() -> None:
    brain = Lifecycle()
    v = Voqalize(brain)
    await v.start()
    await v.feed(pb.SpeechChunk(speech_id=1, text="echo?"))
    await v.feed(pb.Request(request_id=1))
    await v.feed(pb.Envelope())
    await v.feed(pb.SessionStart(turn_id=1, session_id="s-1", wire_version=3))
    await v.feed(pb.Finalize(speech_id=77, heard_text=""))
    await v.feed(pb.UserMessage(turn_id=1, text="turn 1 again"))
    await v.until("error", 6)
    v.conn.report_malformed("text WebSocket message")
    await v.until("error", 7)
    assert v.log("error") == [
        "error ERROR_CODE_PROTOCOL fatal=False",
        "error ERROR_CODE_PROTOCOL fatal=False",
        "error ERROR_CODE_MALFORMED fatal=False",
        "error ERROR_CODE_PROTOCOL fatal=False",
        "error ERROR_CODE_PROTOCOL fatal=False",
        "error ERROR_CODE_PROTOCOL fatal=False",
        "error ERROR_CODE_MALFORMED fatal=False",
    ]
    messages = [e.error.message for e in v.of("error")]
    assert "speech_chunk is a brain-to-Voqalize frame" in messages[0]
    assert "second SessionStart" in messages[3]
    assert "speech_id 77" in messages[4]
    assert "does not follow turn" in messages[5]
    await v.say("still here")
    await v.until("speech_start", 2)


async def test_close_from_the_transport_runs_finally_blocks() -> None:
    brain = Lifecycle()
    v = Voqalize(brain)
    await v.start()
    await v.say("one")
    await v.until("speech_chunk", 2)
    await asyncio.wait_for(v.conn.close(), 2)
    assert brain.events[-1] == "finally one"
