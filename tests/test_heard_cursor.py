"""The forward-only alignment of played words onto a unit's own text."""

from __future__ import annotations

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
