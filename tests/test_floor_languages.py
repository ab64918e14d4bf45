"""Turn-taking in the caller's language: each language's backchannels never take the floor
and its floor words do, on a fake clock (scripted VAD frames, transcripts as Whisper base
writes them); the audio turn model is asked only in the languages it was trained on."""

from __future__ import annotations

import pytest
from test_bargein import F, play

from sandbox.audio.backchannels import Burst, classify, own_words, tokens
from sandbox.audio.bargein import FloorJudge
from sandbox.audio.turn_model import turn_model_hears
from sandbox.call.caller_events import BargeIn, BotResumes


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("hi", "हाँ।"),
        ("hi", "ठीक है।"),
        ("hi", "अच्छा, अच्छा।"),
        ("hi", "Haan, theek hai."),
        ("hi", "ہاں، ٹھیک ہے"),  # how Whisper base often writes a Hindi caller
        ("ur", "اچھا"),
        ("de", "Ja."),
        ("de", "Genau."),
        ("de", "Mhm."),
        ("de", "Ja, genau."),
        ("fr", "Oui, d'accord."),
        ("es", "Sí, claro."),
    ],
)
def test_a_backchannel_of_the_callers_language_is_one(language: str, said: str) -> None:
    assert classify(said, language) is Burst.BACKCHANNEL


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("hi", "रुको!"),
        ("hi", "नहीं, सुनिए।"),
        ("hi", "نہیں، سنیے"),
        ("de", "Stopp!"),
        ("de", "Nein, warte mal."),
    ],
)
def test_a_floor_word_of_the_callers_language_takes_the_floor(language: str, said: str) -> None:
    assert classify(said, language) is Burst.FLOOR
    assert classify(said, "en") is not Burst.FLOOR  # the English judge would not hear it


def test_english_words_are_judged_as_before_and_another_languages_are_not_englishs() -> None:
    assert classify("Mm-hmm.", "en") is Burst.BACKCHANNEL
    assert classify("Ja, genau.", "en") is Burst.UNCLEAR
    assert classify("Yes, I see.", "de") is Burst.UNCLEAR  # "yes" is English's, not German's
    assert classify("Mhm.", "ta") is Burst.BACKCHANNEL  # a hum in any language
    assert not own_words("ta") and own_words("hi") and own_words("de")


def test_devanagari_words_keep_their_vowel_signs_and_lose_the_danda() -> None:
    assert tokens("ठीक है। अच्छा!") == ["ठीक", "है", "अच्छा"]
    assert tokens("Ja, ja, genau.") == ["ja", "genau"]


@pytest.mark.parametrize(("language", "said"), [("hi", "हाँ, ठीक है।"), ("de", "Ja, genau.")])
def test_a_long_backchannel_over_the_bot_lets_it_go_on_in_its_language_only(
    language: str, said: str
) -> None:
    """A caller still voicing "haan, theek hai" at the ask: in Hindi an acknowledgement,
    the bot goes on and no turn starts; judged by English words it is a sentence."""
    judge = FloorJudge()
    judge.language = language
    frames = judge.sentence_ms // F
    play(judge, "#" * frames)
    assert judge.take_request()
    t = frames * F
    assert judge.heard(said, t) == [BotResumes(0, t, "backchannel", said)]

    english = FloorJudge()
    play(english, "#" * frames)
    assert english.take_request()
    assert english.heard(said, t) == [BargeIn(0, t, f"a sentence: {said!r}")]


def test_a_floor_word_of_the_callers_language_read_quickly_takes_the_floor_at_once() -> None:
    judge = FloorJudge()
    judge.language = "de"
    play(judge, "#" * 12 + "." * 3)
    assert judge.take_request() and judge.brief
    assert judge.heard("Stopp!", 470) == [BargeIn(0, 470, "a floor word: 'Stopp!'")]

    english = FloorJudge()  # the English judge lets the bot go on over a German "Stopp!"
    play(english, "#" * 12 + "." * 3)
    english.take_request()
    assert not any(isinstance(e, BargeIn) for e in english.heard("Stopp!", 470))


def test_the_turn_model_is_weighed_only_in_the_languages_it_was_trained_on() -> None:
    for heard in ("en", "de", "fr", "es", "hi", "bn", "mr"):
        assert turn_model_hears(heard)
    for not_heard in ("ta", "te", "sv", "gu", "ur"):
        assert not turn_model_hears(not_heard)
