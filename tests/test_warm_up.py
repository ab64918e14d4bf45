"""The listening path's first-run costs are paid while the engine loads, before any call:
Whisper has met each of its encoder windows, the turn model has run once."""

from __future__ import annotations

import pytest
from whisper_watch import WatchedEncoder

from sandbox.audio.audio_options import AudioOptions
from sandbox.audio.engine import AudioEngine
from sandbox.audio.prosody import final_fall
from sandbox.audio.stt import (
    BRIEF_WINDOW_FRAMES,
    LONG_MIN_WINDOW_FRAMES,
    MIN_WINDOW_FRAMES,
    Transcriber,
)
from sandbox.audio.turn_model import TurnModel
from sandbox.audio.warm_up import LONG_TURN_S, voiced_clip


def test_the_engine_warms_every_listening_stage_before_the_call(
    transcriber: Transcriber, monkeypatch: pytest.MonkeyPatch
) -> None:
    watched = WatchedEncoder(transcriber._model.model)
    monkeypatch.setattr(transcriber._model, "model", watched)
    turn_model = TurnModel.load()
    engine = AudioEngine(AudioOptions(), transcriber=transcriber, turn_model=turn_model)
    said: list[str] = []
    engine.load(said.append)
    # A short turn's window, a long one's and a burst's: each met once before any call.
    assert {MIN_WINDOW_FRAMES, LONG_MIN_WINDOW_FRAMES, BRIEF_WINDOW_FRAMES} <= set(watched.windows)
    assert turn_model.last_ms > 0  # it ran
    warming = next(
        i for i, words in enumerate(said) if words.startswith("warming up the listening")
    )
    warm = next(i for i, words in enumerate(said) if words.startswith("listening path warm in"))
    assert warming < warm < said.index("models ready")
    assert engine.speech is None  # no call has started: no playout was built


def test_the_warm_up_clip_is_voiced_for_the_pitch_track() -> None:
    assert final_fall(voiced_clip(LONG_TURN_S)) is not None
