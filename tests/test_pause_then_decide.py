"""Pause, then decide, in the call core with simulated playout on a fake clock: a pause that
resumes is invisible on the wire; one that becomes a barge-in ends heard text at the pause."""

from __future__ import annotations

from call_rig import Rig

from sandbox.call.effects import CallState, CutPlayout, PausePlayout, ResumePlayout
from sandbox.call.units import Fate


def speaking() -> Rig:
    """A call whose bot is 3 words (100 ms each) into a 7-word answer to turn 2."""
    rig = Rig()
    rig.start()
    rig.caller("what are your hours")
    rig.say(2, 2, "We open at nine and close late.")
    rig.advance(250)
    return rig


def test_a_pause_holds_playout_and_no_word_counts_as_heard_meanwhile() -> None:
    rig = speaking()
    effects = rig.over_bot()
    assert any(isinstance(e, PausePlayout) for e in effects)
    assert rig.core.state is CallState.PAUSED and str(CallState.PAUSED) == "paused: deciding"
    rig.advance(5000)
    unit = rig.core.unit(2)
    assert unit is not None and unit.heard == "We open at" and unit.fate is None
    assert rig.finalizes() == []


def test_a_pause_that_resumes_goes_on_and_the_unit_is_finalized_whole_when_it_ends() -> None:
    rig = speaking()
    rig.over_bot()
    rig.advance(800)
    before = list(rig.sent)
    effects = rig.keep_floor()
    assert any(isinstance(e, ResumePlayout) for e in effects)
    assert rig.core.state is CallState.SPEAKING
    assert rig.sent == before  # the wire saw nothing of the pause
    rig.advance(100)  # the rest of "at", then "nine": as if no pause had happened
    unit = rig.core.unit(2)
    assert unit is not None and unit.heard == "We open at nine"
    rig.advance(1000)
    assert rig.finalizes() == [(2, "We open at nine and close late.")]
    assert rig.interruptions() == [] and rig.core.unit(2).fate is Fate.PLAYED  # type: ignore[union-attr]


def test_a_pause_that_becomes_a_barge_in_ends_the_heard_text_at_the_pause() -> None:
    rig = speaking()
    rig.over_bot()
    rig.advance(700)  # deciding: words that would have played meanwhile never do
    effects = rig.barge_in()
    assert any(isinstance(e, CutPlayout) for e in effects)
    assert rig.interruptions() == [2]
    assert rig.finalizes() == [(2, "We open at")]
    assert rig.core.state is CallState.INTERRUPTED


def test_a_pause_is_taken_only_over_audible_speech_and_only_once() -> None:
    rig = Rig()
    rig.start()
    assert rig.over_bot() == []  # nothing in play: nothing to hold
    rig = speaking()
    assert len([e for e in rig.over_bot() if isinstance(e, PausePlayout)]) == 1
    assert rig.over_bot() == []
    assert rig.keep_floor() and rig.keep_floor() == []


def test_a_cancel_while_paused_cuts_and_ends_the_pause() -> None:
    rig = speaking()
    rig.over_bot()
    rig.cancel(2)
    assert rig.core.state is not CallState.PAUSED
    assert rig.finalizes() == [(2, "We open at")]
    rig.say(3, 2, "Sorry, let me rephrase.")
    rig.advance(1000)
    assert rig.finalizes()[-1] == (3, "Sorry, let me rephrase.")  # plays: the pause is over


def test_a_bid_for_the_floor_read_after_the_bot_went_on_ends_the_heard_text_at_the_cut() -> None:
    """A short burst lets the bot go on before its transcript is read ("stop." is read
    later): the words played in between were heard, and the Finalize says so, exactly."""
    rig = speaking()
    rig.over_bot()
    rig.advance(300)  # the voice: nothing plays
    rig.keep_floor()  # it ended: the bot goes on, its transcript unread
    rig.advance(100)  # the rest of "at", then "nine"
    effects = rig.barge_in()  # the transcript was a bid for the floor
    assert any(isinstance(e, CutPlayout) for e in effects)
    assert rig.interruptions() == [2]
    assert rig.finalizes() == [(2, "We open at nine")]
    assert rig.core.state is CallState.INTERRUPTED
