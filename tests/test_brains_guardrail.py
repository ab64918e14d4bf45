"""The guardrail takes speech back mid-stream and goes on, on the same turn."""

from __future__ import annotations

from test_sdk_harness import Voqalize

from sandbox.brains.guardrail import APOLOGY, GREETING, Guardrail
from sandbox.sdk import Finalize
from sandbox.wire import pb


async def test_flagged_speech_is_cancelled_and_a_new_unit_follows_on_the_same_turn() -> None:
    brain = Guardrail(piece_delay_s=0)
    v = Voqalize(brain)
    await v.start()
    await v.finalize(1, GREETING)
    turn = await v.say("what's my card number?")
    await v.until("speech_cancel")
    sent = v.text_of(2)
    assert "4 4 1 2" in sent  # the guardrail flags text that has already gone out
    assert "expires" not in sent  # ... and stopped the model there
    await v.finalize(2, "Sure. Your card")  # the cut landed after three words
    await v.until("speech_end", 2)
    assert v.speech()[3:] == [
        f"start 2 turn {turn}",
        *[f"chunk 2 {e.speech_chunk.text!r}" for e in v.of("speech_chunk")[1:-1]],
        "cancel 2",
        f"start 3 turn {turn}",
        f"chunk 3 {APOLOGY!r}",
        "end 3",
    ]
    assert brain.cuts == [Finalize(2, "Sure. Your card", sent)]
    await v.finalize(3, APOLOGY)
    await v.sync()
    assert brain.history == [
        {"role": "assistant", "text": GREETING},
        {"role": "user", "text": "what's my card number?"},
        {"role": "assistant", "text": "Sure. Your card"},  # what the caller may have heard
        {"role": "assistant", "text": APOLOGY},
    ]


async def test_without_the_capability_it_stops_talking_and_apologises_after() -> None:
    brain = Guardrail(piece_delay_s=0)
    v = Voqalize(brain)
    await v.start(capabilities=[pb.CAPABILITY_TURN_STEPS])
    await v.say("read me my card")
    await v.until("speech_end", 3)
    assert v.of("speech_cancel") == []
    assert "4 4 1 2" in v.text_of(2) and "expires" not in v.text_of(2)
    assert v.text_of(3) == APOLOGY
    assert brain.cuts == []


async def test_an_unflagged_reply_is_one_plain_unit() -> None:
    brain = Guardrail(piece_delay_s=0)
    v = Voqalize(brain)
    await v.start()
    await v.say("what's my balance?")
    await v.until("speech_end", 2)
    assert v.of("speech_cancel") == []
    assert v.text_of(2) == "Your balance is two hundred and forty dollars. Anything else?"
    await v.play_out()
    assert brain.history[-1]["text"] == v.text_of(2)
