"""The listening path's first-run costs are paid while the engine loads, before any call:
Whisper has decoded once, the pitch track has run."""

from __future__ import annotations

import pytest
from whisper_watch import WatchedEncoder

from sandbox.audio.audio_options import AudioOptions
from sandbox.audio.engine import AudioEngine
from sandbox.audio.prosody import final_fall
from sandbox.audio.stt import MIN_WINDOW_FRAMES, Transcriber
from sandbox.audio.turn_model import TurnModel
from sandbox.audio.warm_up import LONG_TURN_S, voiced_clip


def test_the_engine_runs_whisper_once_before_the_call(
    transcriber: Transcriber, monkeypatch: pytest.MonkeyPatch
) -> None:
    watched = WatchedEncoder(transcriber._model.model)
    monkeypatch.setattr(transcriber._model, "model", watched)
    engine = AudioEngine(AudioOptions(), transcriber=transcriber, turn_model=TurnModel.load())
    said: list[str] = []
    engine.load(said.append)
    assert watched.windows == [MIN_WINDOW_FRAMES]  # one short turn's decode, before any call
    warming = next(
        i for i, words in enumerate(said) if words.startswith("warming up the listening")
    )
    warm = next(i for i, words in enumerate(said) if words.startswith("listening path warm in"))
    assert warming < warm < said.index("models ready")
    assert engine.speech is None  # no call has started: no playout was built


def test_the_warm_up_clip_is_voiced_for_the_pitch_track() -> None:
    assert final_fall(voiced_clip(LONG_TURN_S)) is not None
