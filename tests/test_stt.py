"""Whisper tiny.en, loaded from its package, on espeak-ng caller speech."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from caller_audio import espeak, join, noise, silence, word_errors, words
from whisper_watch import WatchedEncoder

from sandbox.audio.backchannels import Burst, classify
from sandbox.audio.resample import Float32
from sandbox.audio.stt import (
    BRIEF_WINDOW_FRAMES,
    FULL_WINDOW_FRAMES,
    LONG_MIN_WINDOW_FRAMES,
    MIN_WINDOW_FRAMES,
    Transcriber,
    window_frames,
)
from sandbox.call.caller_events import TranscriptMend
from sandbox.errors import UserError
from sandbox_bench.pause_set import complete_utterance

SENTENCES = (
    "I would like to book a table for two.",
    "Hello, I need to change my reservation to Friday evening.",
    "Can I bring my dog to the restaurant?",
    # Not "booking": espeak-ng 1.51's "booking" reaches Whisper tiny.en (ctranslate2 4.8.5,
    # faster-whisper 1.2.1) as "book in" on every run, two word errors by this count.
    "I want to cancel my reservation for tomorrow.",
)


@pytest.mark.parametrize("said", SENTENCES)
def test_transcribes_what_the_caller_said(transcriber: Transcriber, said: str) -> None:
    heard = transcriber.transcribe(join(silence(200), espeak(said), silence(300))).text
    assert word_errors(said, heard) <= 1, heard  # Whisper may vary a word ("work" for "book")


def test_silence_and_room_noise_transcribe_to_nothing(transcriber: Transcriber) -> None:
    assert transcriber.transcribe(silence(2000)).text == ""
    assert transcriber.transcribe(noise(2000, level=0.01)).text == ""


def test_word_timestamps_follow_the_audio(transcriber: Transcriber) -> None:
    said = "I would like to book a table for two."
    lead = 0.5
    audio = join(silence(int(lead * 1000)), espeak(said), silence(300))
    result = transcriber.transcribe(audio, word_timestamps=True)
    assert [w for word in result.words for w in words(word.text)] == words(result.text)
    starts = [w.start for w in result.words]
    assert starts == sorted(starts)
    assert all(w.start <= w.end for w in result.words)
    assert result.words[1].start >= lead  # the first word tends to absorb leading silence
    assert result.words[-1].end <= len(audio) / 16000 + 0.05
    assert transcriber.transcribe(audio).words == ()  # only when asked for


def test_tiny_en_serves_english_only(transcriber: Transcriber) -> None:
    assert transcriber.languages == frozenset({"en"})
    with pytest.raises(UserError, match=r"cannot transcribe 'fr'.*serves: en"):
        transcriber.transcribe(silence(500), language="fr")


def test_a_bad_model_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=f"No speech recognition model at {tmp_path}"):
        Transcriber.load(str(tmp_path))
    (tmp_path / "model.bin").write_bytes(b"not a model")
    with pytest.raises(UserError, match="Could not load the speech recognizer"):
        Transcriber.load(str(tmp_path))


def test_load_reports_progress() -> None:
    said: list[str] = []
    Transcriber.load(progress=said.append)
    assert said[0].startswith("Loading speech recognizer (Whisper tiny.en)")
    assert said[-1].startswith("Speech recognizer ready in ")


def test_window_rule() -> None:
    assert window_frames(200) == MIN_WINDOW_FRAMES  # a short turn: 15 s, no shorter
    assert window_frames(249) == MIN_WINDOW_FRAMES
    assert window_frames(250) == LONG_MIN_WINDOW_FRAMES  # 2.5 s of speech holds an 8 s window
    assert window_frames(750) == 900
    assert window_frames(1450) == 1600  # a long one: the clip and a second, in whole seconds
    assert window_frames(2900) == FULL_WINDOW_FRAMES
    assert window_frames(2901) is None  # over Whisper's window: faster-whisper's own path
    assert window_frames(60, brief=True) == BRIEF_WINDOW_FRAMES  # a burst: 3 s
    assert window_frames(450, brief=True) == 600


@pytest.mark.parametrize(
    ("said", "burst"),
    [
        ("Okay.", Burst.BACKCHANNEL),
        ("Right.", Burst.BACKCHANNEL),  # read "Right Right Right...": a loop, read once
        ("I see.", Burst.BACKCHANNEL),
        ("Stop.", Burst.FLOOR),
        ("Sorry.", Burst.FLOOR),
    ],
)
def test_a_brief_read_of_a_burst_classifies_it_like_a_full_one(
    transcriber: Transcriber, said: str, burst: Burst
) -> None:
    clip = join(silence(100), espeak(said, wpm=160), silence(100))
    brief = transcriber.transcribe(clip, brief=True)
    assert classify(brief.text) is burst, brief
    assert classify(transcriber.transcribe(clip).text) is burst


def test_a_brief_read_keeps_the_text_of_an_unsure_clip_and_says_so(
    transcriber: Transcriber,
) -> None:
    """Noise in a 3 s window: a full read gives nothing; a brief one may give words, marked
    unsure, so the floor judge never stops the bot on them."""
    quiet = noise(600, level=0.01)
    assert transcriber.transcribe(quiet) == transcriber.transcribe(quiet, brief=False)
    full, brief = transcriber.transcribe(quiet), transcriber.transcribe(quiet, brief=True)
    assert full.text == "" and (brief.unsure or brief.text == "")


def test_the_encoder_window_is_cut_to_the_clip(
    transcriber: Transcriber, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The encoder costs what its window holds, so a turn's window fits the turn (15 s at
    least for a short one, where tiny.en stops looping on short sounds; 8 s from 2.5 s of
    audio), and a long turn still reads whole."""
    watched = WatchedEncoder(transcriber._model.model)
    monkeypatch.setattr(transcriber._model, "model", watched)
    clip = espeak("I would like to book a table for two on Friday evening, please.")
    for seconds in (2, 5):
        transcriber.transcribe(np.resize(clip, seconds * 16000))
    assert watched.windows == [MIN_WINDOW_FRAMES, LONG_MIN_WINDOW_FRAMES]
    said = [
        *SENTENCES,
        "My sister is coming too, so we will be three people.",
        "Please send the confirmation to my email address.",
    ]
    long_turn = join(*(join(espeak(sentence), silence(500)) for sentence in said))
    assert 16 < len(long_turn) / 16000 < 28
    heard = transcriber.transcribe(long_turn).text
    assert watched.windows[-1] == window_frames(len(long_turn) // 160)
    assert watched.windows[-1] > MIN_WINDOW_FRAMES
    assert word_errors(" ".join(said), heard) <= len(said), heard
    transcriber.transcribe(join(long_turn, long_turn))
    assert watched.windows[-1] == FULL_WINDOW_FRAMES  # over 29 s: faster-whisper's 30 s windows


def test_a_turn_whisper_loops_on_reaches_the_brain_once(transcriber: Transcriber) -> None:
    """tiny.en loops on this 2.49 s turn ("What documents do I need to bring?", espeak-ng
    en-029 at 170 words a minute, as the listener hands it over when the voice stops); the
    turn's text is its first pass."""
    clip = complete_utterance(26)
    audio = clip.audio[(clip.end_ms - 2190) * 16 : (clip.end_ms + 300) * 16]
    text = transcriber.transcribe(audio).text
    assert text.count("bring") == 1, text


def _in_a_quiet_room(voice: Float32) -> Float32:
    clip = join(silence(300), voice, silence(90))
    return clip + noise(len(clip) * 1000 // 16000 + 1, level=0.003)[: len(clip)]


def test_a_turn_whisper_doubles_reaches_the_brain_as_said(transcriber: Transcriber) -> None:
    """In its 8 s window tiny.en reads this 2.8 s question (espeak-ng en-us+m3 at 140 words a
    minute, a quiet room's noise) twice over; the voice holds it once, so the full window
    reads it again, and the turn says it was mended."""
    said = "How much does a private lesson cost?"
    heard = transcriber.transcribe(_in_a_quiet_room(espeak(said, wpm=140)))
    assert words(heard.text) == words(said), heard
    assert heard.mend is TranscriptMend.DOUBLED
    assert words(heard.first) == words(said) * 2


def test_a_double_the_caller_said_is_kept(transcriber: Transcriber) -> None:
    heard = transcriber.transcribe(_in_a_quiet_room(espeak("No. No.")))
    assert words(heard.text) == ["no", "no"], heard
    assert heard.mend is None
