"""A transcript checked against its clip before it becomes a turn: the rules, with the
decoding handed in, and the voice's span read by the listener's VAD on espeak-ng speech."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from caller_audio import espeak, join, silence

from sandbox.audio.plausible import (
    Reading,
    TimedWord,
    as_said,
    first_of_double,
    unlooped,
    voice_span,
    words_allowed,
)
from sandbox.audio.stt import Word
from sandbox.call.caller_events import TranscriptMend

QUESTION = "How much does a private lesson cost?"


class _Reads:
    """What Whisper would read again, and how often it was asked."""

    def __init__(self, full: str = "", words: Sequence[Word] = ()) -> None:
        self.full, self.words = full, words
        self.asked: list[str] = []

    def full_window(self) -> str:
        self.asked.append("full")
        return self.full

    def timed_words(self) -> Sequence[TimedWord]:
        self.asked.append("timed")
        return self.words


def _check(text: str, span: tuple[float, float] | None, reads: _Reads) -> Reading:
    return as_said(text, span, reads.full_window, reads.timed_words)


@pytest.mark.parametrize(
    ("text", "first_pass"),
    [
        (
            "What document do I need to bring? What document do I need to bring? "
            "What document do I need to bring? What document do I need to",
            "What document do I need to bring?",
        ),
        ("No. No. No. No.", "No."),
        ("No. No.", "No. No."),  # a caller may say it twice: the clip's length decides
        ("Yes. Yes. Yes", "Yes."),
        ("Hi. I need help. I need help. I need help. Thanks.", "Hi. I need help. Thanks."),
        ("I would like a table. Thanks.", "I would like a table. Thanks."),
        ("Okay, so. Okay, so I want", "Okay, so. Okay, so I want"),  # it went on: not a loop
        ("", ""),
    ],
)
def test_a_runaway_loop_is_cut_back_to_its_first_pass(text: str, first_pass: str) -> None:
    assert unlooped(text) == first_pass


@pytest.mark.parametrize(
    ("text", "first"),
    [
        (f"{QUESTION} {QUESTION}", QUESTION),
        ("No. No.", "No."),
        ("Hi. Can I pay? Hi. Can I pay?", "Hi. Can I pay?"),  # a passage of two sentences
        ("how much is it? How much is it", "how much is it?"),  # case and marks aside
        ("मुझे टिकट चाहिए? मुझे टिकट चाहिए?", "मुझे टिकट चाहिए?"),  # in any script
        ("No. No. No.", None),  # odd: a loop's, not a double's
        ("Hi. Hi there.", None),
        (QUESTION, None),
        ("", None),
    ],
)
def test_a_double_is_one_passage_said_twice(text: str, first: str | None) -> None:
    assert first_of_double(text) == first


def test_the_words_a_voice_allows_grow_with_its_length() -> None:
    # A fast speaker's 4.5 words a second, and one spare.
    assert words_allowed(0.0) == 1
    assert words_allowed(0.4) == 3
    assert words_allowed(2.0) == 10
    assert words_allowed(2.3) < len(f"{QUESTION} {QUESTION}".split()) <= words_allowed(3.2)


def test_a_plausible_reading_is_kept_without_reading_again() -> None:
    reads = _Reads()
    assert _check(QUESTION, (0.15, 2.4), reads) == Reading(QUESTION)
    assert reads.asked == []


def test_a_loop_is_cut_and_counted() -> None:
    looped = "No. No. No. No."
    assert _check(looped, (0.1, 0.5), _Reads()) == Reading("No.", TranscriptMend.LOOPED, looped)


def test_a_doubled_turn_is_read_again_in_the_full_window() -> None:
    doubled = f"{QUESTION} {QUESTION}"
    reads = _Reads(full=QUESTION)
    assert _check(doubled, (0.15, 2.4), reads) == Reading(QUESTION, TranscriptMend.DOUBLED, doubled)
    assert reads.asked == ["full"]


def test_a_double_the_full_window_keeps_is_cut_when_the_voice_held_it_once() -> None:
    doubled = f"{QUESTION} {QUESTION}"
    reads = _Reads(full=doubled)
    assert _check(doubled, (0.15, 2.4), reads) == Reading(QUESTION, TranscriptMend.DOUBLED, doubled)


def test_a_double_the_caller_said_stays_as_said() -> None:
    """ "No. No." in 0.7 s of voice: the full window reads it twice as well, and the voice was
    long enough to say it twice."""
    reads = _Reads(full="No. No.")
    assert _check("No. No.", (0.1, 0.8), reads) == Reading("No. No.")
    long_enough = f"{QUESTION} {QUESTION}"
    assert _check(long_enough, (0.1, 4.6), _Reads(full=long_enough)) == Reading(long_enough)


def test_an_overlong_reading_is_read_again_in_the_full_window() -> None:
    overlong = "I lost my library card and then I went home and I made a cup of tea."
    reads = _Reads(full="I lost my library card.")
    assert _check(overlong, (0.1, 1.4), reads) == Reading(
        "I lost my library card.", TranscriptMend.OVERLONG, overlong
    )


def test_a_reading_in_another_script_is_counted_and_read_again() -> None:
    """Whisper base loops in Devanagari on a short Hindi burst: its words count as words,
    so the loop is read again, and a plausible full-window reading in Devanagari is taken
    (not mistaken for a window that heard nothing)."""
    looped = "आप " + "वो " * 30
    reads = _Reads(full="आप रुकिए")
    assert _check(looped, (0.1, 0.9), reads) == Reading("आप रुकिए", TranscriptMend.OVERLONG, looped)
    assert reads.asked == ["full"]


def test_a_tail_after_the_voice_ended_is_dropped_by_its_timestamps() -> None:
    said = "I lost my library card. Thank you for watching and see you next time."
    # The voice ends with "card." at 1.3 s; Whisper places its tail in the silence after.
    starts = [0.1, 0.35, 0.6, 0.85, 1.1, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0, 2.1, 2.2, 2.3]
    timed = [Word(word, at, at + 0.2) for word, at in zip(said.split(), starts, strict=True)]
    reads = _Reads(full=said, words=timed)
    got = _check(said, (0.1, 1.3), reads)
    assert got == Reading("I lost my library card.", TranscriptMend.TAIL, said)
    assert reads.asked == ["full", "timed"]


def test_a_full_window_that_hears_nothing_never_empties_the_turn() -> None:
    doubled = f"{QUESTION} {QUESTION}"
    assert _check(doubled, (0.15, 2.4), _Reads(full="")) == Reading(
        QUESTION, TranscriptMend.DOUBLED, doubled
    )
    overlong = "I lost my library card and then I went home and I made a cup of tea."
    late = [Word("tea.", 5.0, 5.2)]  # timestamps placing nothing inside the voice
    got = _check(overlong, (0.1, 1.4), _Reads(full="", words=late))
    assert got == Reading(overlong)


def test_no_voice_in_the_clip_leaves_the_reading_to_whisper() -> None:
    assert _check("Thank you.", None, _Reads()) == Reading("Thank you.")


def test_the_voice_span_is_where_the_vad_hears_the_voice() -> None:
    voice = espeak(QUESTION)
    span = voice_span(join(silence(300), voice, silence(600)))
    assert span is not None
    start, end = span
    # To within a 30 ms frame or two of the VAD's, and its three frames of hangover.
    assert 0.24 <= start <= 0.36
    assert 0.3 + len(voice) / 16000 - 0.06 <= end <= 0.3 + len(voice) / 16000 + 0.15
    assert voice_span(silence(1000)) is None
