"""The concierge: heard-truth history, lazy units, the tool-only hop and its TurnSteps."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field

from test_sdk_harness import Voqalize, eventually

from sandbox.brains.concierge import GREETING, Concierge
from sandbox.brains.heard_history import Entry, HeardHistory
from sandbox.brains.rule_model import RuleModel, ToolCall, Usage
from sandbox.sdk import SpeechStart
from sandbox.wire import pb


def concierge() -> Concierge:
    return Concierge(model=RuleModel(piece_delay_s=0))


@dataclass
class Request:
    """One model request as the model saw it: what it streamed, and how it ended."""

    streamed: list[str | ToolCall] = field(default_factory=list)
    ran_out: bool = False  # it streamed all it had to say
    closed: bool = False  # its stream is over: nothing more can come of it


class WatchedModel(RuleModel):
    """The rule model, keeping every request it served."""

    def __init__(self, piece_delay_s: float) -> None:
        super().__init__(piece_delay_s)
        self.requests: list[Request] = []

    async def stream(
        self, context: Sequence[Entry], usage: Usage
    ) -> AsyncGenerator[str | ToolCall, None]:
        request = Request()
        self.requests.append(request)
        try:
            async with aclosing(super().stream(context, usage)) as events:
                async for event in events:
                    request.streamed.append(event)
                    yield event
            request.ran_out = True
        finally:
            request.closed = True


async def started(brain: Concierge, **kwargs: object) -> Voqalize:
    v = Voqalize(brain)
    await v.start(**kwargs)  # type: ignore[arg-type]
    return v


def user(text: str) -> dict[str, str]:
    return {"role": "user", "text": text}


def bot(text: str) -> dict[str, str]:
    return {"role": "assistant", "text": text}


async def test_the_greeting_is_recorded_from_its_finalize() -> None:
    brain = concierge()
    v = await started(brain)
    assert brain.history == []  # greet returned a string; nothing is known to be heard yet
    await v.finalize(1, "Hi, thanks for calling")
    await v.sync()
    assert brain.history == [bot("Hi, thanks for calling")]
    assert brain.awaiting == 0


async def test_a_reply_played_in_full_is_remembered_in_full() -> None:
    brain = concierge()
    v = await started(brain)
    await v.play_out()
    await v.say("where are you?")
    await v.until("speech_end", 2)
    await v.play_out()
    assert brain.history == [
        bot(GREETING),
        user("where are you?"),
        bot(v.text_of(2)),
    ]
    assert v.text_of(2).startswith("We're at 12 Harbour Street")


async def test_a_cut_reply_is_remembered_as_heard_and_the_model_plans_on_that() -> None:
    brain = Concierge(model=RuleModel(piece_delay_s=0.005))
    v = await started(brain)
    await v.play_out()
    turn = await v.say("hello there")
    await v.until("speech_chunk", 4)  # a few pieces into a multi-sentence reply
    await v.interrupt(turn)
    await v.until("speech_end", 2)
    generated = v.text_of(2)
    assert generated and not generated.endswith("find us.")  # cut mid-reply
    await v.finalize(2, "Hello again!")
    await v.sync()
    assert brain.history[-1] == bot("Hello again!")
    await v.say("can you repeat that?")
    await v.until("speech_end", 3)
    assert v.text_of(3) == "I said: Hello again!"  # never the sentence it did not finish


async def test_units_nobody_heard_leave_history_and_pairing_stays_in_order() -> None:
    brain = concierge()
    v = await started(brain)
    await v.finalize(1, GREETING)
    await v.say("hi")
    await v.until("speech_end", 2)
    await v.say("where?")  # unit 2 is still queued for playout when unit 3 is said
    await v.until("speech_end", 3)
    assert brain.awaiting == 2
    await v.finalize(2, "")  # beaten to the speaker: never heard
    await v.finalize(3, "We're at 12 Harbour Street,")
    await v.sync()
    assert brain.history == [
        bot(GREETING),
        user("hi"),
        user("where?"),
        bot("We're at 12 Harbour Street,"),
    ]
    assert brain.awaiting == 0


async def test_the_tool_only_hop_opens_no_unit_and_reports_its_steps() -> None:
    brain = concierge()
    v = await started(brain)
    await v.play_out()
    turn = await v.say("how much does a class cost?")
    await v.until("speech_end", 2)
    await v.sync()
    # The screen moved before anything was said, and the turn opened exactly one unit.
    arms = [e.WhichOneof("body") for e in v.sent[3:]]
    assert arms[arms.index("rtvi") + 1] == "turn_step"  # the tool, sent when it ended
    assert arms.count("speech_start") == 1
    assert arms.index("rtvi") < arms.index("speech_start")
    (cmd,) = [json.loads(e.rtvi.data) for e in v.of("rtvi")]
    assert cmd == {"command": "show_section", "payload": {"section": "pricing"}}
    assert v.of("rtvi")[0].rtvi.type == pb.RTVI_TYPE_UI_COMMAND
    assert brain.awaiting == 1  # the tool hop left the queue untouched

    steps = [e.turn_step for e in v.of("turn_step")]
    assert [(s.kind, s.name) for s in steps] == [
        ("model", "harbour-rules-1"),  # asked, and was answered with a tool call
        ("tool", "show_section"),
        ("model", "harbour-rules-1"),  # asked again with the result, and spoke
    ]
    assert {s.turn_id for s in steps} == {turn}
    first, tool, second = steps
    assert first.counts["input_tokens"] > 0 and first.counts["output_tokens"] > 0
    assert second.counts["input_tokens"] > first.counts["input_tokens"]  # it read the result
    assert second.counts["output_tokens"] >= 20  # a multi-sentence answer
    assert dict(tool.counts) == {} and not tool.HasField("first_output_ms")
    assert first.HasField("first_output_ms") and second.HasField("first_output_ms")
    assert first.start_ms <= tool.start_ms <= second.start_ms

    await v.play_out()
    assert brain.history[-3:] == [
        user("how much does a class cost?"),
        {"role": "tool", "text": "show_section: pricing"},
        bot(v.text_of(2)),
    ]
    assert brain.awaiting == 0


async def test_no_steps_without_the_capability() -> None:
    brain = concierge()
    v = await started(brain, capabilities=[pb.CAPABILITY_SPEECH_CANCEL])
    await v.say("what are your opening hours?")
    await v.until("speech_end", 2)
    assert v.of("turn_step") == []
    assert len(v.of("rtvi")) == 1


async def test_the_reply_streams_in_small_pieces_and_empty_pieces_open_nothing() -> None:
    brain = concierge()
    v = await started(brain)
    await v.say("bye")
    await v.until("speech_end", 2)
    chunks = [e.speech_chunk.text for e in v.of("speech_chunk")][1:]
    assert len(chunks) > 5 and all(chunks)
    assert "".join(chunks) == "You're welcome. Have a lovely day, and see you on the mat!"


def test_an_empty_piece_opens_and_enrols_nothing() -> None:
    history = HeardHistory()
    reply = history.reply()
    assert reply.say("") == [] and reply.end() == []
    assert history.entries == [] and history.awaiting == 0
    opened = reply.say("Hi")
    assert isinstance(opened[0], SpeechStart) and history.awaiting == 1
    assert len(reply.say(" there")) == 1  # one unit per reply
    assert len(reply.end()) == 1 and reply.end() == []


async def test_an_idle_caller_gets_a_short_nudge_that_calms_down() -> None:
    brain = concierge()
    v = await started(brain)
    await v.idle(level=1)
    await v.until("speech_end", 2)
    await v.idle(level=2)
    await v.until("speech_end", 3)
    assert v.text_of(2) == "Are you still there?"
    assert v.text_of(3) == "No rush. I'm here whenever you're ready."
    await v.play_out()
    assert brain.history[-1] == bot("No rush. I'm here whenever you're ready.")


async def test_a_barge_in_stops_the_model_and_still_reports_the_request() -> None:
    model = WatchedModel(piece_delay_s=0.005)
    brain = Concierge(model=model)
    v = await started(brain)
    await v.play_out()
    turn = await v.say("tell me your opening hours")
    await v.until("speech_chunk", 3)
    await v.interrupt(turn)
    await v.until("speech_end", 2)
    await eventually(lambda: len(v.of("turn_step")) == 3)
    # The model was stopped, not just muted: the answering request's stream was closed
    # before it ran out, so no piece can come of it any more.
    tool_hop, answer = model.requests
    assert tool_hop.ran_out and isinstance(tool_hop.streamed[-1], ToolCall)
    assert answer.closed and not answer.ran_out
    spoken = "".join(e.speech_chunk.text for e in v.of("speech_chunk")[1:])
    assert "".join(p for p in answer.streamed if isinstance(p, str)).startswith(spoken)
    # The cut request was still metered: the model ran until it was stopped.
    assert v.of("turn_step")[-1].turn_step.kind == "model"
    await v.finalize(2, "")
    await v.sync()
    assert brain.history == [
        bot(GREETING),
        user("tell me your opening hours"),
        {"role": "tool", "text": "show_section: hours"},
    ]
    assert brain.awaiting == 0


async def test_heard_finalizes_pair_with_the_units_they_report() -> None:
    brain = concierge()
    v = await started(brain)
    await v.finalize(1, "Hi,")
    cuts = {"where?": "We're at", "hi": "", "thanks": "You're welcome. Have a lovely day,"}
    for text, heard in cuts.items():
        await v.say(text)
        await v.until("speech_end", v.turn)
        unit = v.of("speech_start")[-1].speech_start.speech_id
        await v.finalize(unit, heard)
        await v.sync()
    said = [e["text"] for e in brain.history if e["role"] == "assistant"]
    assert said == ["Hi,", "We're at", "You're welcome. Have a lovely day,"]
