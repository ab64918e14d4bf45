"""The call core against the wire's Invariants, driven with a fake clock and simulated playout."""

from __future__ import annotations

from call_rig import Rig

from sandbox.call.caller_events import (
    Backchannel,
    CallerSpeaking,
    TranscriptMend,
    TurnClose,
    TurnCommitted,
)
from sandbox.call.effects import (
    BrainStalled,
    CallEnded,
    CallState,
    CutPlayout,
    EndedBy,
    OpenUnit,
    StateChanged,
    StepForUnknownTurn,
    ToApp,
)
from sandbox.call.inputs import AppFrame, BrainClosed, BrainMalformed, FromBrain, HangUp, NotPlaced
from sandbox.call.outcome import Outcome, Verdict
from sandbox.call.played import UnitUnspoken
from sandbox.call.settings import Settings
from sandbox.call.turn_records import ArmSkipped
from sandbox.call.units import Fate
from sandbox.record.call_record import heard_from
from sandbox.wire import pb


def started(**kw: object) -> Rig:
    rig = Rig(**kw)  # type: ignore[arg-type]
    rig.start()
    return rig


# ---------------------------------------------------------------- opening and turns


def test_session_start_is_first_and_mints_turn_1() -> None:
    rig = started()
    first = rig.sent[0].session_start
    assert rig.arms() == ["session_start"]
    assert first.turn_id == 1 and first.wire_version == 3
    assert first.session_id == rig.core.session_id and first.init == "{}"
    assert list(first.capabilities) == [pb.CAPABILITY_SPEECH_CANCEL, pb.CAPABILITY_TURN_STEPS]


def test_nothing_from_the_brain_is_accepted_before_session_start() -> None:
    rig = Rig()
    rig.open(1, 1)
    assert rig.sent == [] and rig.core.units == []


def test_greeting_is_a_unit_on_turn_1_and_plays_out() -> None:
    rig = started()
    rig.say(1, 1, "Hi! How can I help?")
    rig.advance(2000)
    assert rig.finalizes() == [(1, "Hi! How can I help?")]
    assert rig.core.units[0].fate is Fate.PLAYED


def test_user_message_and_user_idle_mint_monotonic_turns() -> None:
    rig = started()
    rig.caller("hello")
    rig.caller("are you there")
    assert [e.user_message.turn_id for e in rig.sent if e.HasField("user_message")] == [2, 3]
    assert rig.core.turn == 3


def test_speech_names_a_minted_turn_or_is_refused() -> None:
    rig = started()
    rig.open(5, 2)  # turn 2 was never minted
    rig.chunk(5, "sneaky")
    rig.end(5)
    errors = rig.errors()
    assert len(errors) == 1 and errors[0].code == pb.ERROR_CODE_PROTOCOL and not errors[0].fatal
    assert "never minted" in errors[0].message
    assert rig.core.units == [] and rig.finalizes() == []


# ---------------------------------------------------------------- brackets


def test_chunk_outside_an_open_unit_is_a_non_fatal_protocol_error() -> None:
    rig = started()
    rig.chunk(9, "stray")
    rig.say(1, 1, "Still here.")
    rig.advance(1000)
    assert [e.code for e in rig.errors()] == [pb.ERROR_CODE_PROTOCOL]
    assert rig.finalizes() == [(1, "Still here.")]
    assert rig.core.ended is None


def test_reused_speech_id_is_refused() -> None:
    rig = started()
    rig.say(1, 1, "One.")
    rig.open(1, 1)
    assert "reuses speech_id 1" in rig.errors()[0].message
    assert len(rig.core.units) == 1


def test_speech_id_zero_is_refused() -> None:
    rig = started()
    rig.open(0, 1)
    assert "speech_id 0" in rig.errors()[0].message


def test_chunk_after_speech_end_is_an_error_and_second_end_too() -> None:
    rig = started()
    rig.say(1, 1, "Done.")
    rig.chunk(1, "more")
    rig.end(1)
    assert len(rig.errors()) == 2
    rig.advance(1000)
    assert rig.finalizes() == [(1, "Done.")]


def test_speech_id_quoted_back_verbatim() -> None:
    rig = started()
    big = 2**63 + 12345
    rig.say(big, 1, "Big id.")
    rig.advance(1000)
    assert rig.finalizes() == [(big, "Big id.")]


def test_silent_unit_reports_empty_after_the_older_unit_plays() -> None:
    rig = started()
    rig.say(1, 1, "One two three four.")
    rig.say(2, 1)  # opened and closed with no text
    assert rig.finalizes() == []  # must not overtake unit 1
    rig.advance(1000)
    assert rig.finalizes() == [(1, "One two three four."), (2, "")]
    assert rig.core.unit(2).fate is Fate.SILENT  # type: ignore[union-attr]


def test_finalizes_arrive_in_the_order_units_opened() -> None:
    rig = started()
    rig.open(7, 1)
    rig.open(3, 1)
    rig.chunk(3, "second unit.")
    rig.end(3)
    rig.chunk(7, "first unit.")
    rig.end(7)
    rig.advance(2000)
    assert [sid for sid, _ in rig.finalizes()] == [7, 3]
    assert rig.finalizes() == [(7, "first unit."), (3, "second unit.")]


def test_words_split_across_chunks_join() -> None:
    rig = started()
    rig.open(1, 1)
    rig.chunk(1, "Bin")
    rig.chunk(1, "ary search ")
    rig.chunk(1, "works.")
    rig.end(1)
    rig.advance(2000)
    assert rig.finalizes() == [(1, "Binary search works.")]


# ---------------------------------------------------------------- barge-in


def test_barge_in_cuts_mid_unit_and_reports_the_heard_prefix() -> None:
    rig = started()
    rig.say(1, 1, "Hello.")
    rig.advance(1000)
    rig.caller("what are your hours")
    rig.open(2, 2)
    rig.chunk(2, "We open at nine. We close at five.")
    rig.advance(250)  # words start at 0, 100, 200 ms: "We open at"
    rig.barge_in()
    assert rig.interruptions() == [2]
    assert rig.core.watermark == 2
    assert any(isinstance(e, CutPlayout) for e in rig.effects)
    assert rig.finalizes()[-1] == (2, "We open at")
    rig.chunk(2, " Late words.")  # still open: discarded, never spoken
    rig.end(2)
    rig.advance(2000)
    unit = rig.core.unit(2)
    assert unit is not None and unit.heard == "We open at" and unit.discarded == [" Late words."]
    assert len(rig.finalizes()) == 2  # exactly one each
    assert rig.errors() == []


def test_heard_is_a_verbatim_prefix_never_crossing_units() -> None:
    rig = started()
    rig.caller("tell me")
    rig.say(1, 2, "Alpha beta.")
    rig.say(2, 2, "Gamma delta epsilon.")
    rig.advance(350)  # alpha, beta, gamma, delta (300 ms)
    rig.barge_in()
    assert rig.finalizes() == [(1, "Alpha beta."), (2, "Gamma delta")]


def test_unit_never_heard_reports_empty() -> None:
    rig = started()
    rig.caller("go")
    rig.say(1, 2, "First sentence here.")
    rig.say(2, 2, "Queued and never played.")
    rig.advance(50)
    rig.barge_in()
    assert rig.finalizes() == [(1, "First"), (2, "")]


def test_speech_for_a_dead_turn_is_discarded_but_still_finalized() -> None:
    rig = started()
    rig.caller("one")
    rig.say(1, 2, "Answer to one.")
    rig.advance(50)
    rig.barge_in()
    rig.caller("two")  # turn 3
    rig.say(2, 2, "Late answer to one.")  # dead on arrival: owed a Finalize, never spoken
    rig.say(3, 3, "Answer to two.")
    rig.advance(2000)
    assert rig.finalizes() == [(1, "Answer"), (2, ""), (3, "Answer to two.")]
    opened = [e.speech_id for e in rig.of(OpenUnit)]
    assert 2 not in opened  # never sent to playout


def test_watermark_is_one_way_and_a_repeat_is_harmless() -> None:
    rig = started()
    rig.caller("a")
    rig.say(1, 2, "x y z")
    rig.barge_in()
    rig.barge_in()  # nothing in flight any more: nothing sent
    assert rig.interruptions() == [2]
    rig.caller("b")
    rig.say(2, 3, "p q r")
    rig.barge_in()
    assert rig.interruptions() == [2, 3]
    assert rig.core.watermark == 3


def test_a_new_caller_turn_over_a_pending_answer_interrupts_it() -> None:
    rig = started()
    rig.caller("first")  # the brain is still thinking about turn 2
    rig.caller("second")
    assert rig.arms()[-2:] == ["interruption", "user_message"]
    assert rig.interruptions() == [2]


def test_caller_turn_when_idle_sends_no_interruption() -> None:
    rig = started()
    rig.say(1, 1, "Hi.")
    rig.advance(500)
    rig.caller("hello")
    assert rig.interruptions() == []


# ---------------------------------------------------------------- RTVI and steps


def test_brain_rtvi_crosses_without_turn_id() -> None:
    rig = started()
    frame = pb.RTVIFrame(type=pb.RTVI_TYPE_UI_COMMAND, data='{"command":"x"}', id="7", turn_id=1)
    rig.brain(frame)
    to_app = rig.of(ToApp)
    assert to_app == [ToApp("ui-command", '{"command":"x"}', "7")]


def test_brain_may_not_forge_bot_or_llm_or_app_types() -> None:
    rig = started()
    for kind in (pb.RTVI_TYPE_BOT_READY, pb.RTVI_TYPE_LLM_TEXT, pb.RTVI_TYPE_UI_EVENT, 99):
        rig.brain(pb.RTVIFrame(type=kind, data="{}"))  # type: ignore[arg-type]
    assert len(rig.errors()) == 4 and rig.of(ToApp) == []
    assert "Voqalize's own assertion" in rig.errors()[0].message
    assert all(not e.fatal for e in rig.errors()) and rig.core.ended is None


def test_rtvi_data_over_64_kib_is_refused() -> None:
    rig = started()
    rig.brain(pb.RTVIFrame(type=pb.RTVI_TYPE_SERVER_MESSAGE, data="x" * (64 * 1024 + 1)))
    assert "limit" in rig.errors()[0].message and rig.of(ToApp) == []


def test_app_frames_cross_and_send_text_commits_a_turn() -> None:
    rig = started()
    rig.feed(AppFrame("ui-event", '{"event":"tap"}', "e1"))
    rig.feed(AppFrame("send-text", '{"content":"typed hello"}', None))
    rig.take(
        rig.core.handle(AppFrame("server-message", "{}", None), rig.now)
    )  # not the app's to send
    assert rig.arms()[1:] == ["rtvi", "user_message"]
    assert rig.sent[1].rtvi.type == pb.RTVI_TYPE_UI_EVENT and rig.sent[1].rtvi.id == "e1"
    assert not rig.sent[1].rtvi.HasField("turn_id")
    assert rig.sent[2].user_message.text == "typed hello" and rig.sent[2].user_message.turn_id == 2


def test_turn_step_recorded_with_counts_absent_not_zero() -> None:
    rig = started()
    step = pb.TurnStep(turn_id=1, kind="model", name="m", start_ms=0, duration_ms=90)
    step.counts["output_tokens"] = 0
    rig.brain(step)
    recorded = rig.core.ledger.steps[0].step
    assert recorded["counts"] == {"output_tokens": 0}  # a zero, not "not reported"
    assert recorded["start_ms"] == 0 and recorded["duration_ms"] == 90  # numbers, kept
    assert "first_output_ms" not in recorded


def test_a_turn_step_is_never_answered_even_for_a_turn_never_minted() -> None:
    """TurnStep: "It is never acknowledged. Nothing comes back for it, success or failure.\""""
    rig = started()
    sent = len(rig.sent)
    effects = rig.brain(pb.TurnStep(turn_id=99, kind="tool", name="lookup"))
    assert rig.sent[sent:] == [] and rig.errors() == []
    assert StepForUnknownTurn(99, "tool", "lookup") in effects
    (step,) = rig.core.ledger.steps
    assert step.turn_id == 99 and not step.known_turn


def test_turn_steps_skipped_without_the_capability() -> None:
    rig = started(capabilities=(pb.CAPABILITY_SPEECH_CANCEL,))
    rig.brain(pb.TurnStep(turn_id=1, kind="tool"))
    assert rig.core.ledger.steps == [] and rig.errors() == []


def test_voqalize_only_frames_from_a_brain_are_protocol_errors() -> None:
    rig = started()
    rig.brain(pb.Finalize(speech_id=1, heard_text="x"))
    rig.brain(pb.UserMessage(turn_id=9, text="forged"))
    assert len(rig.errors()) == 2 and rig.core.turn == 1


def test_malformed_frame_gets_a_malformed_error_and_the_call_goes_on() -> None:
    rig = started()
    rig.feed(BrainMalformed("text WebSocket message"))
    assert rig.errors()[0].code == pb.ERROR_CODE_MALFORMED and rig.core.ended is None


# ---------------------------------------------------------------- the end


def test_brain_end_lets_playout_finish_then_ends() -> None:
    rig = started()
    rig.caller("bye")
    rig.say(1, 2, "Goodbye then.")
    rig.brain(pb.End())
    assert rig.core.ended is None
    rig.advance(1000)
    assert rig.finalizes() == [(1, "Goodbye then.")]
    ended = rig.of(CallEnded)
    assert len(ended) == 1 and ended[0].ended_by == "brain"


def test_brain_cancel_is_abrupt_and_still_finalizes() -> None:
    rig = started()
    rig.caller("hi")
    rig.say(1, 2, "Long reply here.")
    rig.advance(60)
    rig.brain(pb.Cancel(reason="oops"))
    assert rig.finalizes() == [(1, "Long")]
    assert rig.core.ended is not None and rig.core.ended.ended_by == "brain_cancel"


def test_fatal_error_ends_and_version_refusal_is_not_reached() -> None:
    rig = started()
    rig.brain(pb.Error(code=pb.ERROR_CODE_VERSION, message="speaks v2", fatal=True))
    rig.brain(pb.End())
    assert rig.core.ended is not None
    assert rig.core.ended.outcome == "not_reached" and rig.core.ended.ended_by == "brain_error"


def test_a_greeting_the_playout_could_not_speak_is_a_silent_failure_with_its_reason() -> None:
    rig = started()
    rig.open(1, 1)
    rig.chunk(1, "Hello, this is Amy.")
    rig.feed(UnitUnspoken(1, "cannot load voice amy"))
    rig.end(1)
    assert rig.core.units[0].fate is Fate.UNSPOKEN
    assert rig.finalizes() == [(1, "")]  # its Finalize says nothing was heard
    assert rig.core.handle(UnitUnspoken(1, "again"), rig.now) == []  # sealed once
    rig.feed(HangUp())
    assert rig.core.outcome() == "not_reached"
    assert heard_from(rig.core).reason == (
        "the greeting could not be spoken: a silent failure; cannot load voice amy"
    )


def test_non_fatal_brain_error_is_shown_and_the_call_goes_on() -> None:
    rig = started()
    rig.brain(pb.Error(code=pb.ERROR_CODE_INTERNAL, message="tool failed", fatal=False))
    assert rig.core.ended is None and rig.core.ledger.errors[0].dir == "in"


def state_of(rig: Rig) -> CallState:
    """The core's state now (a call, so a type checker does not carry an earlier one over)."""
    return rig.core.state


def test_a_brain_error_while_an_answer_is_owed_ends_the_turn() -> None:
    rig = started(stall_ms=10_000, settings=Settings(idle_ms=8000))
    rig.say(1, 1, "Hi.")
    rig.advance(500)
    rig.caller("please break")
    assert state_of(rig) is CallState.THINKING
    rig.advance(200)
    rig.brain(pb.Error(code=pb.ERROR_CODE_INTERNAL, message="it raised", fatal=False))
    assert state_of(rig) is CallState.LISTENING  # at once, not after the stall

    def idles() -> list[pb.UserIdle]:
        return [e.user_idle for e in rig.sent if e.HasField("user_idle")]

    rig.advance(7_990)
    assert idles() == []
    rig.advance(20)  # the idle wait counted from the error
    assert [i.idle_ms for i in idles()] == [8200]  # the silence since the caller spoke
    assert rig.of(BrainStalled) == []  # the error was the answer: no stall for turn 2
    rig.caller("and now?")
    assert rig.interruptions() == [3]  # only the unanswered nudge dies; turn 2 was over


def test_a_stall_is_recorded_where_it_happened() -> None:
    rig = started(stall_ms=10_000)
    rig.say(1, 1, "Hi.")
    rig.advance(500)
    rig.caller("hello?")
    asked_at = rig.now
    rig.advance(9_990)
    assert rig.core.ledger.stalls == [] and state_of(rig) is CallState.THINKING
    rig.advance(20)
    assert [(s.turn_id, s.waited_ms) for s in rig.core.ledger.stalls] == [(2, 10_000)]
    assert rig.core.ledger.stalls[0].t_ms == asked_at + 10_000
    assert state_of(rig) is CallState.LISTENING


def test_a_backchannel_is_recorded_never_a_turn() -> None:
    rig = started()
    rig.say(1, 1, "Our opening hours are on your screen now.")
    rig.advance(300)
    rig.feed(Backchannel("uh huh", rig.now, rig.now))
    assert [(b.t_ms, b.text) for b in rig.core.ledger.backchannels] == [(rig.now, "uh huh")]
    assert rig.core.ledger.caller_lines == [] and rig.interruptions() == []


def test_hang_up_finalizes_everything_and_sends_end() -> None:
    rig = started()
    rig.caller("tell me a story please now")
    rig.caller("and then another one")
    rig.open(1, 3)
    rig.chunk(1, "Once upon")
    rig.feed(HangUp())
    assert rig.finalizes() == [(1, "")]
    assert rig.arms()[-1] == "end"
    assert rig.core.ended is not None and rig.core.ended.outcome == "completed"


def test_brain_socket_closing_ends_the_call() -> None:
    rig = started()
    rig.feed(BrainClosed("connection lost"))
    assert rig.core.ended is not None and rig.core.ended.ended_by == "brain_closed"
    # Before the caller heard a word from it: the worker failed, not "nobody answered".
    assert rig.core.verdict() == Verdict(
        Outcome.NOT_REACHED,
        "the brain failed before the caller heard a word from it: connection lost",
    )


def test_thin_call_is_not_a_conversation() -> None:
    rig = started()
    rig.say(1, 1, "Hello!")
    rig.advance(500)
    rig.caller("hi")
    rig.feed(HangUp())
    assert rig.core.ended is not None and rig.core.ended.outcome == "not_a_conversation"


def test_greeting_that_could_not_be_spoken_is_not_reached() -> None:
    rig = started()
    rig.say(1, 1, "Hello there!")
    rig.feed(BrainClosed("gone"))
    assert rig.core.ended is not None and rig.core.ended.outcome == "not_reached"


def test_state_moves_through_thinking_speaking_listening() -> None:
    rig = started()

    def states() -> list[CallState]:
        return [e.state for e in rig.of(StateChanged)]

    assert states() == [CallState.THINKING]
    rig.say(1, 1, "Hi there.")
    assert states()[-1] is CallState.SPEAKING
    rig.advance(1000)
    assert states()[-1] is CallState.LISTENING
    rig.feed(CallerSpeaking(rig.now))
    assert states()[-1] is CallState.CALLER_SPEAKING


def test_a_brain_that_stalls_is_reported_and_the_call_goes_on() -> None:
    rig = started(stall_ms=5000)
    rig.say(1, 1, "Hi.")
    rig.advance(500)
    rig.caller("hello?")
    rig.advance(6000)
    assert rig.of(BrainStalled) == [BrainStalled(turn_id=2, waited_ms=5000)]
    assert rig.core.ended is None


# ---------------------------------------------------------------- joined commits


def test_a_resumed_fragment_is_a_new_turn_and_no_text_reaches_the_brain_twice() -> None:
    """Heard truth: the caller's side is msg.text verbatim. A caller who goes on after silence
    forced a close starts a new turn; the fragment's answer dies; no UserMessage repeats
    another."""
    rig = started()
    rig.caller("I'd like to book a table for")
    rig.advance(1200)  # silence forced the close; the caller goes on before any answer
    rig.feed(TurnCommitted("two on Friday", TurnClose.CONFIDENT, rig.now, rig.now, rig.now))
    messages = [e.user_message for e in rig.sent if e.HasField("user_message")]
    assert [(m.turn_id, m.text) for m in messages] == [
        (2, "I'd like to book a table for"),
        (3, "two on Friday"),
    ]
    assert rig.interruptions() == [2]  # the fragment's answer dies
    assert rig.core.ledger.caller_lines == ["I'd like to book a table for", "two on Friday"]
    assert rig.core.ledger.caller_closes[3] == "confident"


def test_a_mended_turn_reaches_the_brain_as_mended_and_its_mend_is_recorded() -> None:
    rig = started()
    question = "How much does a private lesson cost?"
    rig.feed(
        TurnCommitted(question, TurnClose.FINAL, rig.now, rig.now, rig.now, TranscriptMend.DOUBLED)
    )
    rig.caller("And on Sundays?")
    messages = [e.user_message.text for e in rig.sent if e.HasField("user_message")]
    assert messages == [question, "And on Sundays?"]
    assert rig.core.ledger.caller_mends == {2: TranscriptMend.DOUBLED}  # 1: the greeting


def test_an_arm_added_within_the_version_is_skipped_not_refused() -> None:
    """Capabilities: "A frame added within a version is skipped, not refused"."""
    from sandbox.wire.codec import decode

    rig = started()
    tag = (17 << 3) | 2
    newer = decode(bytes([0x80 | (tag & 0x7F), tag >> 7, 0x02, 0x08, 0x01]))
    sent = len(rig.sent)
    assert rig.feed(FromBrain(newer)) == [ArmSkipped((17,), newer.ByteSize())]  # recorded only
    assert rig.sent[sent:] == [] and rig.errors() == []


def test_after_the_brains_end_no_new_unit_opens() -> None:
    rig = started()
    rig.open(1, 1)
    rig.chunk(1, "One two three four.")
    rig.brain(pb.End())
    rig.open(2, 1)  # the call is still playing out unit 1
    assert "after the brain's End" in rig.errors()[-1].message
    rig.advance(1000)
    assert [sid for sid, _ in rig.finalizes()] == [1]
    assert rig.core.ended is not None


def test_a_call_never_placed_ends_not_reached_with_its_reason() -> None:
    rig = Rig()
    (ended,) = rig.take(rig.core.handle(NotPlaced("the brain did not answer"), 0))
    assert ended == CallEnded(Outcome.NOT_REACHED, EndedBy.DIAL_FAILED, "the brain did not answer")
    assert rig.core.ended == ended and rig.sent == []
