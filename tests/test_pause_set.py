"""The held-apart pause set: where its pauses sit, and how its afterthoughts differ."""

from __future__ import annotations

import numpy as np
import pytest

from sandbox.audio.endpointer import FALL_SEMITONES
from sandbox.audio.prosody import final_fall
from sandbox_bench.pause_set import (
    PAUSABLE,
    PAUSABLE_QUESTIONS,
    PAUSE_MAX_MS,
    PAUSE_MIN_MS,
    afterthought_utterance,
    pause_inside,
    paused_set,
    paused_utterance,
)

MS = 16  # samples per ms at 16 kHz


def loud_ms(audio: np.ndarray, start_ms: int, end_ms: int) -> float:
    """The loudest sample between two moments."""
    return float(np.abs(audio[start_ms * MS : end_ms * MS]).max(initial=0.0))


@pytest.mark.parametrize("index", [0, 7, 29, 47])
def test_a_paused_and_an_afterthought_utterance_hold_the_same_silent_pause(index: int) -> None:
    for utterance in (paused_utterance(index), afterthought_utterance(index)):
        assert utterance.pause is not None
        start, resume = utterance.pause
        assert PAUSE_MIN_MS <= resume - start <= PAUSE_MAX_MS
        assert loud_ms(utterance.audio, start + 5, resume - 5) < 0.01  # silence
        assert loud_ms(utterance.audio, start - 100, start) > 0.05  # voice before it
        assert loud_ms(utterance.audio, resume, resume + 100) > 0.05  # and after it
        assert utterance.end_ms > resume
    words = PAUSABLE[index // 2][0].split()
    assert afterthought_utterance(index).text.replace(". … ", " ").split() == words
    assert paused_utterance(index).text.replace(" … ", " ").split() == words


def test_words_said_whole_keep_going_but_said_alone_end_as_a_statement() -> None:
    """ "I want to cancel" cut from the whole sentence does not fall; said on its own, it ends
    with a statement's fall: the afterthought the endpointer answers after the clause."""
    text = "I want to cancel my membership because I am moving abroad"
    inside = pause_inside(text, 3, 600, "en-us", 170)
    alone = afterthought_utterance(26)  # the same sentence, paused after "cancel"
    assert alone.text.startswith("I want to cancel. …")
    for utterance, falls in ((inside, False), (alone, True)):
        assert utterance.pause is not None
        fall = final_fall(utterance.audio[: (utterance.pause[0] + 150) * MS])
        assert fall is not None
        assert (fall <= -FALL_SEMITONES) == falls, fall


@pytest.mark.parametrize("index", [48, 61, 71, 75])
def test_a_paused_question_is_said_as_a_question_with_its_pause_inside(index: int) -> None:
    """The set's questions ("Can I book a table for … four on Saturday night?") keep the
    question's words and mark, hold a silent pause, and are told apart from the sentences."""
    utterance = paused_utterance(index)
    text = PAUSABLE_QUESTIONS[(index - 2 * len(PAUSABLE)) // 2][0]
    assert utterance.asked and utterance.text.replace(" … ", " ") == text
    assert utterance.text.endswith("?") and utterance.pause is not None
    start, resume = utterance.pause
    assert loud_ms(utterance.audio, start + 5, resume - 5) < 0.01
    assert loud_ms(utterance.audio, resume, resume + 100) > 0.05


def test_the_paused_set_holds_both_kinds_whole_or_limited() -> None:
    whole = [u.asked for u in paused_set()]
    assert len(whole) == 2 * (len(PAUSABLE) + len(PAUSABLE_QUESTIONS))
    assert whole.count(True) == 2 * len(PAUSABLE_QUESTIONS) == 28
    assert [u.asked for u in paused_set(2)] == [False, False, True, True]
