"""The simulated playout clock used where there is no audio."""

from __future__ import annotations

from sandbox.call.played import UnitPlayed, WordPlayed
from sandbox.call.sim_playout import SimPlayout


def test_words_are_heard_as_their_slot_starts_units_in_order() -> None:
    sim = SimPlayout(ms_per_word=100)
    sim.open_unit(1, 1, 1, 0)
    sim.speak(1, "one two", 0)
    sim.close_unit(1, 0)
    sim.open_unit(2, 1, 1, 0)
    sim.speak(2, "three", 0)
    sim.close_unit(2, 0)
    assert sim.advance(0) == [WordPlayed(1, "one")]
    assert sim.advance(99) == []
    assert sim.advance(150) == [WordPlayed(1, "two")]
    assert sim.advance(250) == [UnitPlayed(1), WordPlayed(2, "three")]
    assert sim.advance(1000) == [UnitPlayed(2)]


def test_a_word_still_arriving_waits_for_its_end() -> None:
    sim = SimPlayout(ms_per_word=100)
    sim.open_unit(1, 1, 1, 0)
    sim.speak(1, "bin", 0)
    assert sim.advance(500) == []
    sim.speak(1, "ary ", 500)
    assert sim.advance(550) == [WordPlayed(1, "binary")]


def test_cut_drops_everything() -> None:
    sim = SimPlayout(ms_per_word=100)
    sim.open_unit(1, 1, 1, 0)
    sim.speak(1, "a b c d", 0)
    sim.close_unit(1, 0)
    sim.advance(120)
    sim.cut(120)
    assert sim.advance(10_000) == [] and not sim.speaking


def test_after_a_cut_mid_word_the_next_unit_starts_at_once_and_its_first_word_is_heard() -> None:
    sim = SimPlayout(ms_per_word=100)
    sim.open_unit(1, 1, 1, 0)
    sim.speak(1, "a b c d", 0)
    sim.close_unit(1, 0)
    assert sim.advance(120) == [WordPlayed(1, "a"), WordPlayed(1, "b")]
    sim.cut(120)  # mid "b": its slot would have run to 200
    sim.open_unit(2, 1, 1, 120)
    sim.speak(2, "yes then", 120)
    sim.close_unit(2, 120)
    assert sim.advance(120) == [WordPlayed(2, "yes")]
    assert sim.advance(220) == [WordPlayed(2, "then")]
