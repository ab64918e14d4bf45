"""Streamed text is handed to the synthesizer as soon as a clause is complete."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sandbox.audio.clauses import take_ready


def test_first_clause_goes_at_its_comma_however_short_then_whole_sentences() -> None:
    ready, rest = take_ready("So, we open at nine, and close at five. Then more", first=True)
    assert ready == ["So, ", "we open at nine, and close at five. "]
    assert rest == "Then more"


def test_a_short_sentence_goes_at_once() -> None:
    assert take_ready("Hi! How are", first=True) == (["Hi! "], "How are")


def test_after_the_first_only_sentence_ends_split() -> None:
    ready, rest = take_ready("one, two. three, four", first=False)
    assert ready == ["one, two. "] and rest == "three, four"


def test_nothing_ready_without_a_boundary() -> None:
    assert take_ready("still going", first=True) == ([], "still going")
    assert take_ready("end.", first=True) == ([], "end.")  # a chunk may continue: "end.com"


@given(st.text(alphabet="ab ,.!?", max_size=60), st.booleans())
def test_pieces_and_rest_rebuild_the_text_exactly(text: str, first: bool) -> None:
    ready, rest = take_ready(text, first)
    assert "".join(ready) + rest == text


def test_the_catalog_languages_own_marks_end_clauses_and_sentences() -> None:
    """A Hindi reply's first clause goes at its danda, an Urdu one's at its comma, so first
    audio waits for a clause in every language, not for the unit's end."""
    assert take_ready("जी हाँ। हम सुबह खुलते हैं। और ", True) == (
        ["जी हाँ। ", "हम सुबह खुलते हैं। "],
        "और ",
    )
    stop = "\u06d4"  # the Arabic full stop, which Urdu ends a sentence with
    urdu = f"جی، ہم کھلتے ہیں{stop} کیا "
    assert take_ready(urdu, True) == (["جی، ", f"ہم کھلتے ہیں{stop} "], "کیا ")
    assert take_ready("क्या आप आएँगे? हाँ ", False) == (["क्या आप आएँगे? "], "हाँ ")
