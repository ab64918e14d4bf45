"""The forward-only alignment of played words onto a unit's own text."""

from __future__ import annotations

import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sandbox.call.heard import HeardCursor


def cursor(text: str) -> HeardCursor:
    c = HeardCursor()
    c.extend(text)
    return c


def test_prefix_ends_after_the_last_matched_word_with_its_punctuation() -> None:
    c = cursor("Good question. One approach is")
    for word in ["Good", "question"]:
        assert c.played(word)
    assert c.heard == "Good question."


def test_a_word_matching_nothing_is_skipped() -> None:
    c = cursor("one two three")
    assert not c.played("banana")  # the core counts it in the report's alignment_skips
    assert c.heard == ""
    assert c.played("one") and c.heard == "one"


def test_cursor_only_moves_forward() -> None:
    c = cursor("a b c a")
    assert c.played("c")
    assert not c.played("b")  # behind the cursor: skipped, never moves back
    assert c.heard == "a b c"
    c.played("a")
    assert c.heard == "a b c a"


def test_lookahead_resyncs_over_a_swallowed_word() -> None:
    c = cursor("of the cat sat")
    c.played("of")
    c.played("cat")  # "the" merged away by the synthesizer
    assert c.heard == "of the cat"


def test_words_split_across_chunks() -> None:
    c = HeardCursor()
    c.extend("bin")
    c.extend("ary search")
    assert c.played("binary") and c.heard == "binary"


@given(st.lists(st.text(min_size=0, max_size=8), max_size=20), st.text(max_size=60))
def test_heard_is_always_a_prefix_of_the_text(played: list[str], text: str) -> None:
    c = cursor(text)
    for word in played:
        c.played(word)
        assert text.startswith(c.heard)


REPLY = (
    "Our opening hours are on your screen now. We're open seven to eight on weekdays, and "
    "nine to four at the weekend. The busiest classes are the early evening ones, so book "
    "those a day ahead."
)


def test_a_settled_cursor_keeps_its_text_and_counts_and_lets_its_word_index_go() -> None:
    tracemalloc.start()  # before the cursor: only what is allocated while tracing counts
    try:
        c = HeardCursor()
        for piece in REPLY.split(" "):
            c.extend(piece + " ")
        for word in REPLY.split()[:30]:  # each word compared is keyed, as playout goes
            assert c.played(word)
        before = (c.text, c.heard, c.chars, c.heard_chars, c.words_heard, c.words_total)
        held = tracemalloc.get_traced_memory()[0]
        c.settle()
        freed = held - tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert (c.text, c.heard, c.chars, c.heard_chars, c.words_heard, c.words_total) == before
    assert before[4:] == (30, 36)
    assert freed > 2000, freed  # the starts, ends and keys of 36 words
    with pytest.raises(AssertionError):
        c.played("classes")  # the unit is finalized: nothing more counts as heard
    with pytest.raises(AssertionError):
        c.extend(" more")


def test_a_unit_played_to_its_end_settles_with_every_word_heard() -> None:
    c = cursor(REPLY)
    c.played_all()
    c.settle()
    c.played_all()  # what a whole unit reads as, settled or not
    assert c.heard == REPLY and c.words_heard == c.words_total == 36
