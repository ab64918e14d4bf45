"""The espeak-ng voices through the system's libespeak-ng: real synthesis, real word events."""

from __future__ import annotations

import numpy as np
import pytest
from caller_audio import word_errors, words

from sandbox.audio.clip_rate import at_rate
from sandbox.audio.espeak_tts import EspeakVoice, espeak_language, library
from sandbox.audio.resample import resample
from sandbox.audio.stt import SAMPLE_RATE, Transcriber
from sandbox.audio.tts import Clip, Synthesizer, Trouble
from sandbox.audio.voices import ESPEAK_LANGUAGES, ESPEAK_VARIANTS, catalog
from sandbox.audio.wordalign import split_words
from sandbox.wire import pb
from sandbox.wire.catalog import LANGUAGE_BY_ISO

GERMAN = "Guten Tag! Ihr Termin ist am Montag um drei Uhr, bitte kommen Sie pünktlich."


@pytest.fixture(scope="module")
def female() -> EspeakVoice:
    return EspeakVoice.load(catalog()[pb.VOICE_ESPEAK_FEMALE])


def loud(samples: np.ndarray) -> bool:
    return bool(len(samples)) and int(np.max(np.abs(samples.astype(np.int32)))) > 1000


def test_the_catalog_languages_espeak_is_said_to_speak_are_the_ones_it_has() -> None:
    engine = library()
    for voice in ESPEAK_VARIANTS:
        entry = catalog()[voice]
        assert entry.installed and entry.kind == "espeak"
        spoken = {code for code in LANGUAGE_BY_ISO if LANGUAGE_BY_ISO[code] in entry.languages}
        assert spoken == set(ESPEAK_LANGUAGES)
    for code in ESPEAK_LANGUAGES:
        assert engine.speaks(espeak_language(LANGUAGE_BY_ISO[code])), code
    for code in set(LANGUAGE_BY_ISO) - set(ESPEAK_LANGUAGES):
        assert not engine.speaks(code), f"espeak-ng has {code}: the catalog should claim it"
    assert len(ESPEAK_LANGUAGES) == 23


def test_german_is_one_clip_whose_words_are_the_text_on_espeaks_samples(
    female: EspeakVoice,
) -> None:
    (clip,) = female.synthesize(GERMAN, language=pb.LANGUAGE_DE)
    assert clip.sample_rate == female.sample_rate == 22050
    assert clip.text == GERMAN
    assert [w.text for w in clip.words] == [t.text for t in split_words(GERMAN)]
    position = 0
    for word in clip.words:
        assert position <= word.start < word.end <= len(clip.samples)
        assert loud(clip.samples[word.start : word.end]), word  # each span holds its word
        position = word.end


def test_the_two_voices_differ_and_each_language_sounds_its_own(female: EspeakVoice) -> None:
    male = EspeakVoice.load(catalog()[pb.VOICE_ESPEAK_MALE])
    text = "Namaste"
    (a,) = male.synthesize(text, language=pb.LANGUAGE_HI)
    (b,) = female.synthesize(text, language=pb.LANGUAGE_HI)
    (c,) = female.synthesize(text, language=pb.LANGUAGE_DE)
    assert not np.array_equal(a.samples, b.samples)
    assert not np.array_equal(b.samples, c.samples)


def test_a_language_the_voice_lacks_or_a_nul_is_reported_unsaid(female: EspeakVoice) -> None:
    troubles: list[Trouble] = []
    assert list(female.synthesize("hallo", troubles.append, language=pb.LANGUAGE_BHO)) == []
    assert troubles[-1].text == "hallo" and "does not speak bho" in troubles[-1].reason
    clips = list(female.synthesize("eins zwei\x00drei", troubles.append, language=pb.LANGUAGE_DE))
    assert [w.text for c in clips for w in c.words] == ["eins", "zwei"]
    assert troubles[-1].text == "\x00drei" and not troubles[-1].repaired


def test_markup_is_said_as_text_never_obeyed(female: EspeakVoice) -> None:
    text = '<speak>eins</speak> [[h@loU]] <break time="5s"/> zwei'
    clips = list(female.synthesize(text, language=pb.LANGUAGE_DE))
    said = [w.text for c in clips for w in c.words]
    assert said[0] == "<speak>eins</speak>" and said[-1] == "zwei"
    assert sum(len(c.samples) for c in clips) < 5 * female.sample_rate  # no 5 s break


def test_piper_then_espeak_then_piper_again_each_speak_as_alone(
    synthesizer: Synthesizer, female: EspeakVoice
) -> None:
    """Piper's own espeak-ng (its phonemes) and the system's (the espeak voices) live in one
    process without stepping on each other."""
    text = "Sure, I can help with that."

    def piper() -> Clip:
        (clip,) = synthesizer.synthesize(text)
        return clip

    def espeak() -> Clip:
        (clip,) = female.synthesize(GERMAN, language=pb.LANGUAGE_DE)
        return clip

    # Piper's audio is not the same twice (its model draws noise): its phonemes are.
    phonemes = synthesizer.phonemize(text)
    before, first_espeak = piper(), espeak()
    after, second_espeak = piper(), espeak()
    assert synthesizer.phonemize(text) == phonemes
    assert [w.text for w in before.words] == [w.text for w in after.words]
    assert loud(before.samples) and loud(after.samples)
    # Nor is espeak's exactly (a few samples of jitter from one synthesis to the next).
    assert [w.text for w in first_espeak.words] == [w.text for w in second_espeak.words]
    for one, two in zip(first_espeak.words, second_espeak.words, strict=True):
        assert abs(one.start - two.start) < 0.05 * female.sample_rate
    assert loud(first_espeak.samples) and loud(second_espeak.samples)


def test_a_clip_at_another_rate_keeps_each_word_at_the_same_instant(female: EspeakVoice) -> None:
    (clip,) = female.synthesize("Hallo Welt", language=pb.LANGUAGE_DE)
    moved = at_rate(clip, 48000)
    assert moved.sample_rate == 48000 and moved.text == clip.text
    assert abs(moved.duration - clip.duration) < 0.01
    for old, new in zip(clip.words, moved.words, strict=True):
        assert new.text == old.text
        assert abs(new.start / 48000 - old.start / clip.sample_rate) < 0.001
    assert at_rate(clip, clip.sample_rate) is clip


def test_audio_cut_where_a_word_starts_holds_the_words_before_it_and_not_that_word(
    transcriber: Transcriber,
) -> None:
    """The spans are where the words are: Whisper, which owes espeak nothing, hears the
    words before a cut at a word's start and not the word itself."""
    male = EspeakVoice.load(catalog()[pb.VOICE_ESPEAK_MALE])
    text = "Please call me back tomorrow morning about the booking for my sister."
    (clip,) = male.synthesize(text, language=pb.LANGUAGE_EN)
    for cut in (4, 7, 10):
        start = clip.words[cut].start
        pcm = resample(clip.samples[:start], clip.sample_rate, SAMPLE_RATE)
        heard = words(transcriber.transcribe(pcm, language="en").text)
        said = words(" ".join(w.text for w in clip.words[:cut]))
        # tiny.en misreads a word of espeak's now and then ("booking for": "working force").
        assert abs(len(heard) - len(said)) <= 1, (cut, heard)
        assert word_errors(" ".join(said), " ".join(heard)) <= 2, (cut, heard)
        assert words(clip.words[cut].text)[0] not in heard[cut - 1 :], (cut, heard)
