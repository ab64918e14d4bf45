"""Piper through the Synthesizer: one clip per sentence, words placed on the real audio."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from piper import PiperVoice

from sandbox.audio.tts import Clip, Synthesizer, aligned_model
from sandbox.audio.voices import VoiceEntry, catalog, default_voice
from sandbox.audio.wordalign import split_words
from sandbox.errors import UserError
from sandbox.wire import pb


def rms(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(samples.astype(np.float64) ** 2))) if len(samples) else 0.0


def note_model_runs(
    target: object, monkeypatch: pytest.MonkeyPatch, note: Callable[[], None]
) -> None:
    """Call ``note()`` each time Piper runs its model (once per sentence) on ``target``:
    a PiperVoice, or the PiperVoice class for every voice."""
    run = target.phoneme_ids_to_audio  # type: ignore[attr-defined]

    def noted(*args: Any, **kwargs: Any) -> Any:
        note()
        return run(*args, **kwargs)

    monkeypatch.setattr(target, "phoneme_ids_to_audio", noted)


def spans_in_order(clip: Clip) -> bool:
    position = 0
    for word in clip.words:
        if not position <= word.start <= word.end <= len(clip.samples):
            return False
        position = word.end
    return True


def test_a_sentence_is_one_clip_of_int16_audio_with_every_word_in_order(
    synthesizer: Synthesizer,
) -> None:
    text = "Sure, I can help with that."
    (clip,) = synthesizer.synthesize(text)
    assert synthesizer.sample_rate == clip.sample_rate == 22050
    assert clip.samples.dtype == np.int16 and clip.samples.ndim == 1
    assert 1.0 < clip.duration < 3.0
    assert clip.text == text
    assert [w.text for w in clip.words] == ["Sure,", "I", "can", "help", "with", "that."]
    assert spans_in_order(clip)
    assert all(w.end > w.start for w in clip.words)


def test_sentences_become_clips_whose_texts_rebuild_the_input(synthesizer: Synthesizer) -> None:
    text = "Good question. Dr. Smith has 42 apples, and a cup of the tea!  Is that so?"
    clips = list(synthesizer.synthesize(text))
    assert [c.text for c in clips] == [
        "Good question. ",
        "Dr. ",  # espeak ends a sentence after "Dr."
        "Smith has 42 apples, and a cup of the tea!  ",
        "Is that so?",
    ]
    assert "".join(c.text for c in clips) == text
    words = [w.text for c in clips for w in c.words]
    assert words == [t.text for t in split_words(text)]
    assert all(spans_in_order(c) for c in clips)


def test_word_spans_sit_on_the_speech_and_the_pauses_fall_between_them(
    synthesizer: Synthesizer,
) -> None:
    (clip,) = synthesizer.synthesize("Red, green, blue, yellow.")
    assert [w.text for w in clip.words] == ["Red,", "green,", "blue,", "yellow."]
    for word, following in zip(clip.words, clip.words[1:], strict=False):
        pause = clip.samples[word.end : following.start]
        assert len(pause) > 0.1 * clip.sample_rate  # the comma's pause is outside both words
        assert rms(clip.samples[word.start : word.end]) > 20 * rms(pause)


def test_a_number_is_one_word_as_long_as_its_spoken_form(synthesizer: Synthesizer) -> None:
    (clip,) = synthesizer.synthesize("I have 1,234 apples.")
    by_text = {w.text: w.end - w.start for w in clip.words}
    assert list(by_text) == ["I", "have", "1,234", "apples."]
    assert by_text["1,234"] > 3 * by_text["apples."]  # "one thousand two hundred ..."


def test_merged_and_unspoken_tokens(synthesizer: Synthesizer) -> None:
    (clip,) = synthesizer.synthesize("A cup of the tea — hot.")
    # espeak says "of the" as one word; the dash is only a pause, not a word.
    assert [w.text for w in clip.words] == ["A", "cup", "of", "the", "tea", "hot."]
    assert spans_in_order(clip)
    of, the = clip.words[2], clip.words[3]
    assert of.end <= the.start and of.end - of.start > 0 and the.end - the.start > 0


def test_text_with_nothing_to_say_yields_no_clip(synthesizer: Synthesizer) -> None:
    assert list(synthesizer.synthesize("")) == []
    assert list(synthesizer.synthesize("  ... — ")) == []


def test_the_first_clip_comes_before_the_rest_are_synthesized(
    synthesizer: Synthesizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (
        "Okay. The library opens at nine in the morning on weekdays and at ten on weekends. "
        "Bring your card if you would like to borrow more than three books at a time."
    )
    runs: list[None] = []
    note_model_runs(synthesizer._piper, monkeypatch, lambda: runs.append(None))
    clips = synthesizer.synthesize(text)
    assert runs == []  # nothing is synthesized before the first clip is asked for
    first = next(clips)
    assert len(runs) == 1  # the first clip comes from one model run: its sentence alone
    assert first.text.strip() == "Okay."
    rest = list(clips)
    assert len(rest) == 2 and len(runs) == 3


def test_loading_a_voice_reports_progress_and_warms_up(monkeypatch: pytest.MonkeyPatch) -> None:
    happened: list[str] = []
    note_model_runs(PiperVoice, monkeypatch, lambda: happened.append("model run"))
    synthesizer = Synthesizer.load(progress=happened.append)
    # Warm: the model has run before load returns, so no first-call penalty is left.
    assert happened[:3] == ["loading voice joe", "warming up voice joe", "model run"]
    assert set(happened[2:]) == {"model run"}
    assert synthesizer.voice.voice == pb.VOICE_JOE
    assert next(synthesizer.synthesize("Okay.")).samples.size > 0


def test_the_voices_session_keeps_no_buffers_between_sentences(
    synthesizer: Synthesizer,
) -> None:
    # Neither onnxruntime's CPU arena nor its memory patterns: both held freed buffers.
    options = synthesizer._piper.session.get_session_options()
    assert not options.enable_cpu_mem_arena and not options.enable_mem_pattern


def test_a_voice_that_is_not_installed_is_refused_in_words() -> None:
    amy = VoiceEntry(pb.VOICE_AMY, "amy", (pb.LANGUAGE_EN,), None, None, installed=False)
    with pytest.raises(UserError, match=r"voice amy is not installed.*voices/README.md"):
        Synthesizer.load(amy)


def test_a_broken_model_file_is_refused_in_words(tmp_path: Path) -> None:
    model, config = tmp_path / "en_US-amy-medium.onnx", tmp_path / "en_US-amy-medium.onnx.json"
    model.write_bytes(b"not a model")
    config.write_text("{}")
    amy = VoiceEntry(pb.VOICE_AMY, "amy", (pb.LANGUAGE_EN,), model, config, installed=True)
    with pytest.raises(UserError, match="cannot load voice amy"):
        Synthesizer.load(amy)


def test_a_model_without_alignment_output_spreads_words_over_the_phonemes() -> None:
    from piper import PiperVoice

    joe = catalog()[pb.VOICE_JOE]
    assert joe.model_path is not None
    plain = Synthesizer(joe, PiperVoice.load(joe.model_path, joe.config_path))  # not patched
    (clip,) = plain.synthesize("Red, green, blue, yellow.")
    assert [w.text for w in clip.words] == ["Red,", "green,", "blue,", "yellow."]
    assert spans_in_order(clip)
    assert clip.words[0].start > 0 and clip.words[-1].end < len(clip.samples)


def test_the_voice_is_prepared_for_word_timings_once_into_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import onnxruntime

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    model = catalog()[default_voice()].model_path
    assert model is not None
    told: list[str] = []
    first = aligned_model(model, told.append)
    assert aligned_model(model, told.append) == first  # the second load reads it back
    assert first.is_relative_to(tmp_path) and len(told) == 1
    session = onnxruntime.InferenceSession(str(first), providers=["CPUExecutionProvider"])
    plain = onnxruntime.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    assert len(session.get_outputs()) == len(plain.get_outputs()) + 1  # the alignments
    assert not list(first.parent.glob("*.partial"))
