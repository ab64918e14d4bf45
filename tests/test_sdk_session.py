"""The session's floor-free methods: configure, cancel_speech, report_step, RTVI, end."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import ClassVar

import pytest
from test_sdk_harness import Voqalize, eventually

from sandbox.sdk import (
    Brain,
    BrainConnection,
    CapabilityMissing,
    Chunk,
    Config,
    ConfigError,
    Finalize,
    IdleConfig,
    RequestRejected,
    RTVIFrame,
    Session,
    SessionClosed,
    Speech,
    SpeechEnd,
    SpeechStart,
    SttConfig,
    TtsConfig,
    TurnStep,
    UserMessage,
)
from sandbox.wire import pb
from sandbox.wire.codec import envelope

Action = Callable[[Session], Awaitable[object]]


class Hands(Brain):
    """Runs one scripted action in on_session_start and keeps what came of it."""

    def __init__(self, action: Action) -> None:
        self.action = action
        self.outcome: object = None
        self.session: Session | None = None

    async def on_session_start(self, session: Session) -> None:
        self.session = session
        try:
            self.outcome = await self.action(session)
        except Exception as exc:
            self.outcome = exc


def _requests(v: Voqalize) -> list[pb.Request]:
    return [e.request for e in v.of("request")]


async def test_configure_accepted_sends_the_delta_and_returns() -> None:
    async def act(session: Session) -> object:
        await session.configure(
            Config(tts=TtsConfig(voice="amy", language="hi"), stt=SttConfig(language="or"))
        )
        return "ok"

    brain = Hands(act)
    v = Voqalize(brain)
    await v.start()
    (request,) = await v.until("request")
    cfg = request.request.configure
    assert request.request.request_id == 1
    assert cfg.tts.voice == pb.VOICE_AMY and cfg.tts.language == pb.LANGUAGE_HI
    assert cfg.stt.language == pb.LANGUAGE_OR
    assert not cfg.stt.HasField("patience") and not cfg.HasField("idle")
    # Still waiting for the answer: a configure that did not wait would have returned
    # in the very step that queued the Request, before the Request could be sent.
    assert brain.outcome is None
    await v.feed(pb.Response(request_id=1, status=pb.STATUS_ACCEPTED))
    await eventually(lambda: brain.outcome == "ok")


async def test_configure_rejected_raises_with_the_detail() -> None:
    async def act(session: Session) -> object:
        await session.configure(Config(tts=TtsConfig(language="ta"), stt=SttConfig(language="ta")))
        return "ok"

    brain = Hands(act)
    v = Voqalize(brain)
    await v.start()
    await v.until("request")
    await v.feed(pb.Response(request_id=1, status=pb.STATUS_REJECTED, detail="joe speaks: en"))
    await eventually(lambda: brain.outcome is not None)
    assert isinstance(brain.outcome, RequestRejected)
    assert brain.outcome.detail == "joe speaks: en"


async def test_request_ids_are_session_monotonic() -> None:
    async def act(session: Session) -> object:
        await session.configure(Config(idle=IdleConfig(timeout_ms=0)))
        await session.configure(Config(stt=SttConfig(patience=3)))
        return "both"

    brain = Hands(act)
    v = Voqalize(brain)
    await v.start()
    await v.until("request")
    await v.feed(pb.Response(request_id=1, status=pb.STATUS_ACCEPTED))
    await v.until("request", 2)
    assert [r.request_id for r in _requests(v)] == [1, 2]
    assert _requests(v)[1].configure.stt.patience == 3
    await v.feed(pb.Response(request_id=2, status=pb.STATUS_ACCEPTED))
    await eventually(lambda: brain.outcome == "both")


async def test_a_half_stated_language_is_refused_before_anything_is_sent() -> None:
    async def act(session: Session) -> object:
        await session.configure(Config(tts=TtsConfig(language="hi")))
        return "sent"

    brain = Hands(act)
    v = Voqalize(brain)
    await v.start()
    await v.sync()  # on_session_start has returned: anything it sent is on the wire
    assert isinstance(brain.outcome, ConfigError)
    assert "both legs" in str(brain.outcome)
    assert v.of("request") == []


async def test_a_response_nobody_asked_for_is_a_protocol_error() -> None:
    v = Voqalize(Brain())
    await v.start()
    await v.feed(pb.Response(request_id=9, status=pb.STATUS_ACCEPTED))
    await v.until("error")
    assert v.log("error") == ["error ERROR_CODE_PROTOCOL fatal=False"]


class Guard(Brain):
    """Opens a unit, streams two chunks, takes it back, then says something else."""

    def __init__(self) -> None:
        self.cut: Finalize | None = None
        self.refusal: Exception | None = None
        self.finals: list[Finalize] = []

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        start = SpeechStart()
        yield start
        yield Chunk("Good question. One approach is ")
        yield Chunk("to use binary search on")
        try:
            self.cut = await session.cancel_speech(start.speech_id)
        except CapabilityMissing as exc:
            self.refusal = exc
        yield Chunk(" ignored after the cut")
        yield SpeechEnd()  # legal after a cancel, and ignored
        yield SpeechStart()
        yield Chunk("Let's think about it differently.")
        yield SpeechEnd()

    async def on_finalize(self, session: Session, fin: Finalize) -> None:
        self.finals.append(fin)


async def test_cancel_speech_resolves_on_its_finalize_and_the_turn_goes_on() -> None:
    brain = Guard()
    v = Voqalize(brain)
    await v.start()
    await v.say("how?")
    await v.until("speech_cancel")
    # Waiting for the unit's Finalize: a cancel_speech that did not wait would have
    # returned in the very step that queued the SpeechCancel, before it could be sent.
    assert brain.cut is None
    assert v.log("speech_start") == ["start 1 turn 2"]
    await v.finalize(1, "Good question.")
    await v.until("speech_end")
    assert brain.cut == Finalize(
        1, "Good question.", "Good question. One approach is to use binary search on"
    )
    assert v.speech() == [
        "start 1 turn 2",
        "chunk 1 'Good question. One approach is '",
        "chunk 1 'to use binary search on'",
        "cancel 1",
        "start 2 turn 2",
        'chunk 2 "Let\'s think about it differently."',
        "end 2",
    ]
    await v.finalize(2, "Let's think about it differently.")
    await v.sync()
    assert [f.speech_id for f in brain.finals] == [1, 2]  # on_finalize hears about both


async def test_cancel_speech_is_refused_locally_without_the_capability() -> None:
    brain = Guard()
    v = Voqalize(brain)
    await v.start(capabilities=[pb.CAPABILITY_TURN_STEPS])
    await v.say("how?")
    await v.until("speech_end", 2)
    assert isinstance(brain.refusal, CapabilityMissing)
    assert "can_cancel_speech" in str(brain.refusal)
    assert v.of("speech_cancel") == []


async def test_cancel_after_the_finalize_returns_it_without_sending() -> None:
    async def act(session: Session) -> object:
        return await session.cancel_speech(1)  # the greeting

    class Greets(Hands):
        async def greet(self, session: Session) -> str:
            return "Hi."

        async def on_finalize(self, session: Session, fin: Finalize) -> None:
            self.outcome = await self.action(session)

        async def on_session_start(self, session: Session) -> None:
            pass

    brain = Greets(act)
    v = Voqalize(brain)
    await v.start()
    await v.finalize(1, "Hi.")
    await eventually(lambda: brain.outcome is not None)
    assert brain.outcome == Finalize(1, "Hi.", "Hi.")
    assert v.of("speech_cancel") == []


async def test_cancel_of_an_unknown_unit_is_a_value_error() -> None:
    brain = Hands(lambda s: s.cancel_speech(42))
    v = Voqalize(brain)
    await v.start()
    await v.sync()
    assert isinstance(brain.outcome, ValueError)


class Stepper(Brain):
    def __init__(self) -> None:
        self.outcome: object = None

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        try:
            session.report_step(
                TurnStep(
                    kind="model",
                    name="rules-1",
                    start_ms=0,
                    duration_ms=12,
                    first_output_ms=3,
                    counts={"input_tokens": 40, "output_tokens": 0},
                )
            )
            session.report_step(TurnStep(kind="tool", name="show_section", turn_id=1))
            self.outcome = "sent"
        except CapabilityMissing as exc:
            self.outcome = exc
        yield SpeechStart()
        yield Chunk("ok")
        yield SpeechEnd()


async def test_report_step_names_the_turn_being_answered() -> None:
    brain = Stepper()
    v = Voqalize(brain)
    await v.start()
    turn = await v.say("x")
    await v.until("turn_step", 2)
    first, second = (e.turn_step for e in v.of("turn_step"))
    assert (first.turn_id, first.kind, first.name) == (turn, "model", "rules-1")
    assert first.duration_ms == 12
    assert first.HasField("first_output_ms") and first.first_output_ms == 3
    assert dict(first.counts) == {"input_tokens": 40, "output_tokens": 0}  # 0 is a zero
    assert second.turn_id == 1 and not second.HasField("first_output_ms")


async def test_report_step_is_refused_locally_without_the_capability() -> None:
    brain = Stepper()
    v = Voqalize(brain)
    await v.start(capabilities=[pb.CAPABILITY_SPEECH_CANCEL])
    await v.say("x")
    await v.until("speech_end")
    assert isinstance(brain.outcome, CapabilityMissing)
    assert "can_report_steps" in str(brain.outcome)
    assert v.of("turn_step") == []


def test_a_step_field_out_of_range_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="duration_ms"):
        TurnStep(kind="model", name="m", duration_ms=-1).to_pb(2)
    with pytest.raises(ValueError, match="counts"):
        TurnStep(kind="model", name="m", counts={"rows": -3}).to_pb(2)


@dataclass
class ShowSection:
    section: str


@dataclass
class Highlight:
    command: ClassVar[str] = "highlight_row"
    row: int


class Screen(Brain):
    def __init__(self) -> None:
        self.frames: list[RTVIFrame] = []
        self.bad: list[Exception] = []

    async def on_rtvi(self, session: Session, frame: RTVIFrame) -> None:
        self.frames.append(frame)
        session.dispatch(ShowSection(section=frame.data["section"]))
        session.dispatch(Highlight(row=2))
        session.dispatch(("close_panel", {}))
        session.send_rtvi("server-response", {"ok": True}, id=frame.id)
        for wrong in ("bot-ready", "ui-event"):
            try:
                session.send_rtvi(wrong, {})
            except ValueError as exc:
                self.bad.append(exc)
        try:
            session.send_rtvi("server-message", {"blob": "x" * 70_000})
        except ValueError as exc:
            self.bad.append(exc)


async def test_rtvi_both_ways_and_dispatch() -> None:
    brain = Screen()
    v = Voqalize(brain)
    await v.start()
    await v.feed(pb.RTVIFrame(type=pb.RTVI_TYPE_UI_EVENT, data='{"section": "pricing"}', id="ev-7"))
    await v.until("rtvi", 4)
    assert brain.frames == [RTVIFrame(type="ui-event", data={"section": "pricing"}, id="ev-7")]
    out = [e.rtvi for e in v.of("rtvi")]
    assert [json.loads(f.data) for f in out[:3]] == [
        {"command": "show_section", "payload": {"section": "pricing"}},
        {"command": "highlight_row", "payload": {"row": 2}},
        {"command": "close_panel", "payload": {}},
    ]
    assert {f.type for f in out[:3]} == {pb.RTVI_TYPE_UI_COMMAND}
    assert out[3].type == pb.RTVI_TYPE_SERVER_RESPONSE and out[3].id == "ev-7"
    assert all(f.turn_id == 1 for f in out)  # annotated with the newest turn
    assert len(brain.bad) == 3
    assert "cannot send RTVI type 'bot-ready'" in str(brain.bad[0])
    assert "ui-command" in str(brain.bad[1])  # the message lists what a brain may send
    assert "at most 65536" in str(brain.bad[2])


async def test_rtvi_that_must_not_reach_a_brain_is_a_protocol_error() -> None:
    brain = Screen()
    v = Voqalize(brain)
    await v.start()
    await v.feed(pb.RTVIFrame(type=pb.RTVI_TYPE_BOT_READY, data="{}"))
    await v.feed(pb.RTVIFrame(type=pb.RTVI_TYPE_UI_EVENT, data="{not json"))
    await v.until("error", 2)
    assert v.log("error") == [
        "error ERROR_CODE_PROTOCOL fatal=False",
        "error ERROR_CODE_MALFORMED fatal=False",
    ]
    assert brain.frames == []


class HangsUp(Brain):
    def __init__(self) -> None:
        self.after: list[object] = []
        self.heard: list[str] = []

    async def on_finalize(self, session: Session, fin: Finalize) -> None:
        self.heard.append(fin.heard)

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        yield SpeechStart()
        yield Chunk("Goodbye!")
        yield SpeechEnd()
        session.end()
        session.end()  # a second call does nothing
        session.send_rtvi("server-message", {})  # dropped with a log line: the call is over
        try:
            await session.configure(Config(idle=IdleConfig(timeout_ms=1)))
        except SessionClosed as exc:
            self.after.append(exc)
        except asyncio.CancelledError:
            self.after.append("cancelled")
            raise


async def test_session_end_sends_end_after_what_was_said() -> None:
    brain = HangsUp()
    v = Voqalize(brain)
    await v.start()
    await v.say("bye")
    await eventually(lambda: v.log()[-1:] == ["end"])
    assert v.log() == ["start 1 turn 2", "chunk 1 'Goodbye!'", "end 1", "end"]
    assert len(brain.after) == 1
    # End is a graceful close: the session stays open for the Finalize it is owed.
    assert not v.conn.closed
    await v.finalize(1, "Goodbye!")
    await v.conn.close()  # Voqalize closes the socket at the call's end
    assert brain.heard == ["Goodbye!"]  # handled before the close, which came after it
    assert v.log()[-1] == "end"  # nothing went out after End


class EndsAtOnce(Brain):
    async def on_session_start(self, session: Session) -> None:
        session.end()


async def test_after_its_end_a_session_waits_for_the_close_no_longer_than_end_wait_s() -> None:
    sent: list[pb.Envelope] = []

    async def send(env: pb.Envelope) -> None:
        sent.append(env)

    conn = BrainConnection(EndsAtOnce(), send, session_id="s-1", end_wait_s=0.2)
    start = pb.SessionStart(turn_id=1, session_id="s-1", wire_version=3)
    await conn.feed(envelope(start))
    await eventually(lambda: [e.WhichOneof("body") for e in sent] == ["end"])
    assert not conn.closed
    await asyncio.wait_for(conn.wait_closed(), 5)  # no close came: the wait ran out
    assert [e.WhichOneof("body") for e in sent] == ["end"]
