"""espeak-ng's word events placed on the text's own words (pure: no espeak here)."""

from __future__ import annotations

from sandbox.audio.espeak_words import EventKind, SynthEvent, word_spans
from sandbox.audio.tts import WordSpan

W, E = EventKind.WORD, EventKind.END


def test_each_word_runs_from_its_event_to_the_next_word() -> None:
    text = "Guten Tag, Welt."
    events = [SynthEvent(W, 1, 0), SynthEvent(W, 7, 900), SynthEvent(W, 12, 2000)]
    assert word_spans(text, events, 3000) == (
        WordSpan("Guten", 0, 900),
        WordSpan("Tag,", 900, 2000),
        WordSpan("Welt.", 2000, 3000),
    )


def test_a_word_ends_where_its_clause_ends_not_after_the_trailing_silence() -> None:
    events = [SynthEvent(W, 1, 0), SynthEvent(W, 7, 500), SynthEvent(E, 10, 1200)]
    assert word_spans("Hallo du.", events, 4000)[-1] == WordSpan("du.", 500, 1200)


def test_a_word_espeak_says_as_several_keeps_its_first_event() -> None:
    # "3,5" is said "drei Komma fünf": three word events inside one token.
    events = [SynthEvent(W, 1, 0), SynthEvent(W, 2, 300), SynthEvent(W, 2, 600)]
    events.append(SynthEvent(W, 5, 1000))
    assert word_spans("3,5 Euro", events, 1500) == (
        WordSpan("3,5", 0, 1000),
        WordSpan("Euro", 1000, 1500),
    )


def test_a_token_espeak_does_not_say_is_no_word_and_positions_count_characters() -> None:
    text = "Grüße — bitte"  # "ü" and "ß" are one character each, as espeak counts them
    events = [SynthEvent(W, 1, 0), SynthEvent(W, 9, 700)]
    assert [w.text for w in word_spans(text, events, 1000)] == ["Grüße", "bitte"]


def test_words_never_overlap_nor_run_past_the_audio() -> None:
    events = [SynthEvent(W, 1, 800), SynthEvent(W, 3, 500), SynthEvent(W, 5, 9000)]
    spans = word_spans("a b c", events, 1000)
    assert [(w.start, w.end) for w in spans] == [(800, 800), (800, 1000), (1000, 1000)]


def test_no_events_no_words() -> None:
    assert word_spans("…", [], 100) == ()
