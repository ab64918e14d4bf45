"""Whisper tiny.en, loaded from its package, on espeak-ng caller speech."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from caller_audio import espeak, join, noise, silence, word_errors, words

from sandbox.audio.stt import Transcriber
from sandbox.errors import UserError


@pytest.mark.parametrize(
    "said",
    [
        "I would like to book a table for two.",
        "Hello, I need to change my reservation to Friday evening.",
        "Can I bring my dog to the restaurant?",
        "I want to cancel my booking for tomorrow.",
    ],
)
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


def test_latency_has_a_floor_not_a_slope(
    transcriber: Transcriber, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whisper encodes one 30 s window whatever the clip, so 5 s costs little more than 2 s
    (``sandbox bench`` measures how much): the encoder is given the same window for both."""
    clip = espeak("I would like to book a table for two on Friday evening, please.")
    windows: list[tuple[int, ...]] = []
    encode = transcriber._model.encode

    def watched(features: Any) -> Any:
        windows.append(tuple(features.shape))
        return encode(features)

    monkeypatch.setattr(transcriber._model, "encode", watched)
    for seconds in (2, 5):
        transcriber.transcribe(np.resize(clip, seconds * 16000))
    thirty_s = 30 * 100  # Whisper's features: one frame per 10 ms
    assert [shape[-1] for shape in windows] == [thirty_s, thirty_s]  # one full window each
