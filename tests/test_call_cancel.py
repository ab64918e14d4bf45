"""Every row of the wire's "When the cancel arrives" table (docs/wire.md), and the whole-floor
cut."""

from __future__ import annotations

from call_rig import Rig

from sandbox.call.effects import CutPlayout
from sandbox.wire import pb


def started(**kw: object) -> Rig:
    rig = Rig(**kw)  # type: ignore[arg-type]
    rig.start()
    rig.caller("explain binary search")  # turn 2
    return rig


def test_the_seed_example_same_turn_goes_on() -> None:
    rig = started()
    rig.open(7, 2)
    rig.chunk(7, "Good question. One approach is ")
    rig.advance(150)  # Good (0 ms), question. (100 ms)
    rig.chunk(7, "to use binary search on…")
    rig.cancel(7)
    assert rig.finalizes() == [(7, "Good question.")]
    assert rig.interruptions() == [] and rig.core.watermark == 0
    rig.open(8, 2)  # same turn, still open
    rig.chunk(8, "Let's think about it differently.")
    rig.end(8)
    rig.advance(2000)
    assert rig.finalizes() == [(7, "Good question."), (8, "Let's think about it differently.")]
    assert rig.errors() == []


def test_open_unit_answered_by_its_finalize_at_once() -> None:
    rig = started()
    rig.open(1, 2)
    rig.chunk(1, "one two three four five")
    rig.advance(150)
    rig.cancel(1)
    assert rig.finalizes() == [(1, "one two")]
    assert any(isinstance(e, CutPlayout) for e in rig.effects)


def test_closed_unit_still_playing_is_cut() -> None:
    rig = started()
    rig.say(1, 2, "one two three four five")
    rig.advance(250)
    rig.cancel(1)  # legal after SpeechEnd: it cuts a unit still playing
    assert rig.finalizes() == [(1, "one two three")]
    assert rig.errors() == []


def test_before_any_of_it_was_spoken_reports_empty() -> None:
    rig = started()
    rig.open(1, 2)
    rig.chunk(1, "never heard")
    rig.cancel(1)
    assert rig.finalizes() == [(1, "")]


def test_after_its_finalize_or_a_second_time_nothing_comes_back() -> None:
    rig = started()
    rig.say(1, 2, "short")
    rig.advance(1000)
    rig.cancel(1)  # its Finalize already went
    rig.open(2, 2)
    rig.chunk(2, "a b c")
    rig.cancel(2)
    rig.cancel(2)  # second time
    assert rig.finalizes() == [(1, "short"), (2, "")]
    assert rig.errors() == []


def test_naming_zero_or_a_unit_never_opened_is_a_non_fatal_protocol_error() -> None:
    rig = started()
    rig.cancel(0)
    rig.cancel(42)
    assert [e.code for e in rig.errors()] == [pb.ERROR_CODE_PROTOCOL] * 2
    assert rig.core.ended is None


def test_without_the_capability_the_unit_plays_out_in_full() -> None:
    rig = started(capabilities=(pb.CAPABILITY_TURN_STEPS,))
    rig.open(1, 2)
    rig.chunk(1, "all of this plays")
    rig.cancel(1)
    rig.chunk(1, " anyway.")
    rig.end(1)
    rig.advance(2000)
    assert rig.finalizes() == [(1, "all of this plays anyway.")]


def test_chunks_and_end_after_the_cancel_are_ignored_not_errors() -> None:
    rig = started()
    rig.open(1, 2)
    rig.chunk(1, "alpha beta")
    rig.advance(60)
    rig.cancel(1)
    rig.chunk(1, " gamma")  # the model was still streaming
    rig.end(1)
    assert rig.errors() == []
    assert rig.finalizes() == [(1, "alpha")]
    assert rig.core.unit(1).generated == "alpha beta gamma"  # type: ignore[union-attr]


def test_the_cut_is_the_whole_floor_oldest_first() -> None:
    rig = started()
    rig.say(1, 2, "earlier unit words")  # still playing
    rig.open(2, 2)
    rig.chunk(2, "target unit")
    rig.open(3, 2)  # a later unit, still open
    rig.chunk(3, "later open unit")
    rig.advance(150)  # earlier, unit
    rig.cancel(2)
    assert rig.finalizes() == [(1, "earlier unit"), (2, ""), (3, "")]
    rig.chunk(3, " more")  # ignored the same way
    rig.end(3)
    assert rig.errors() == []
    rig.open(4, 2)  # opened after the cancel: plays
    rig.chunk(4, "after the cut")
    rig.end(4)
    rig.advance(2000)
    assert rig.finalizes()[-1] == (4, "after the cut")


def test_cancel_and_barge_in_together_converge_one_finalize_each() -> None:
    rig = started()
    rig.say(1, 2, "one two three")
    rig.open(2, 2)
    rig.chunk(2, "four five")
    rig.advance(150)
    rig.cancel(2)
    rig.barge_in()
    rig.cancel(1)
    rig.advance(2000)
    ids = [sid for sid, _ in rig.finalizes()]
    assert ids == [1, 2]
    assert rig.interruptions() == [2]


def test_a_cancel_for_a_refused_unit_gets_the_tables_protocol_error() -> None:
    """A unit refused at SpeechStart (a turn never minted) never opened: cancelling it is
    "naming a unit this session never opened"; its chunks and SpeechEnd drop quietly."""
    rig = Rig()
    rig.start()
    rig.open(5, 9)
    rig.chunk(5, "ignored")
    rig.end(5)
    assert len(rig.errors()) == 1  # the refusal itself
    rig.cancel(5)
    assert len(rig.errors()) == 2 and "never opened" in rig.errors()[1].message
    assert rig.core.ended is None


def test_a_unit_cancelled_before_any_text_does_not_hold_back_the_next() -> None:
    rig = started()
    rig.open(7, 2)
    rig.cancel(7)  # nothing to silence, but its empty slot must leave playout's queue
    assert any(isinstance(e, CutPlayout) for e in rig.effects)
    rig.advance(100)
    rig.say(8, 2, "Right away.")
    rig.advance(3000)
    assert rig.finalizes() == [(7, ""), (8, "Right away.")]


def test_a_barge_in_over_a_unit_with_no_text_yet_does_not_silence_the_next_turn() -> None:
    rig = started()
    rig.open(7, 2)
    rig.advance(500)
    rig.caller("actually, make it four")  # turn 3: turn 2's empty unit is barged
    rig.say(8, 3, "Right away.")
    rig.advance(3000)
    assert rig.finalizes() == [(7, ""), (8, "Right away.")]
