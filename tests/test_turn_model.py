"""The audio turn model: its features against pipecat's reference, the model itself, and the
end of turn through real parts (VAD, endpointer, Smart Turn, Whisper tiny.en)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pytest

from sandbox.audio.endpointer import (
    FALL_SEMITONES,
    RISE_SEMITONES,
    asks_question,
    text_shape,
    windows_for,
)
from sandbox.audio.listener import Listener
from sandbox.audio.resample import Float32
from sandbox.audio.stt import SAMPLE_RATE, Transcriber, Transcript
from sandbox.audio.turn_model import (
    FRAMES,
    MODEL_PATH,
    MODEL_SHA256,
    N_MELS,
    WINDOW_SAMPLES,
    TurnModel,
    fit_window,
    log_mel,
)
from sandbox.call.caller_events import TurnClose, TurnCommitted
from sandbox.call.endpointing_steps import EndpointingStep, Fall, Rise
from sandbox.record.stored_events import kind_of
from sandbox_bench.pause_set import COMPLETE, complete_utterance
from sandbox_bench.pauses import InlineModels, first_commit, pauses_table

#: Clips and their features by pipecat 1.14.0's own numpy port of WhisperFeatureExtractor
#: (written by tools/vendor-turn-model from the wheel).
REFERENCE = Path(__file__).parent / "data" / "smart_turn_features.npz"


def test_the_shipped_model_is_the_recorded_file_and_its_licence_ships_beside_it() -> None:
    assert hashlib.sha256(MODEL_PATH.read_bytes()).hexdigest() == MODEL_SHA256
    licence = (MODEL_PATH.parent / "LICENSE.smart-turn").read_text()
    assert "BSD 2-Clause" in licence and "Daily" in licence
    assert MODEL_SHA256 in (MODEL_PATH.parent / "README.md").read_text()


def test_fit_window_keeps_the_last_8_s_and_pads_in_front() -> None:
    short = np.ones(SAMPLE_RATE, dtype=np.float32)
    fitted = fit_window(short)
    assert fitted.shape == (WINDOW_SAMPLES,)
    assert not fitted[:-SAMPLE_RATE].any() and fitted[-SAMPLE_RATE:].all()
    long = np.arange(WINDOW_SAMPLES + 5, dtype=np.float32)
    assert fit_window(long)[0] == 5


def test_log_mel_shape_and_range() -> None:
    rng = np.random.default_rng(3)
    features = log_mel(fit_window((rng.standard_normal(40_000) * 0.1).astype(np.float32)))
    assert features.shape == (N_MELS, FRAMES) and features.dtype == np.float32
    assert features.max() - features.min() <= 2.0 + 1e-6  # 8 decades, scaled by 1/4
    with pytest.raises(ValueError, match="128000"):
        log_mel(np.zeros(100, dtype=np.float32))


def test_log_mel_matches_pipecats_whisper_features() -> None:
    reference = np.load(REFERENCE)
    for i in (0, 1):
        clip = reference[f"clip{i}"].astype(np.float32) / 32767
        np.testing.assert_allclose(log_mel(fit_window(clip)), reference[f"features{i}"], atol=1e-5)


@pytest.fixture(scope="module")
def model() -> TurnModel:
    return TurnModel.load()


@pytest.fixture(scope="module")
def transcriber() -> Iterator[Transcriber]:
    yield Transcriber.load()


def test_the_shipped_model_loads_gives_a_probability_and_times_itself(model: TurnModel) -> None:
    p = model.probability(np.zeros(SAMPLE_RATE, dtype=np.float32))
    assert 0.0 <= p <= 1.0 and model.last_ms > 0


def test_an_unpunctuated_question_commits_as_fast_as_a_punctuated_one(
    model: TurnModel, transcriber: Transcriber
) -> None:
    """No slow tail, through real parts: "is the studio open on public holidays", spoken flat
    by espeak-ng, goes through the VAD, the endpointer, Smart Turn and Whisper; it closes in
    the confident window at the default patience whatever punctuation Whisper gives it."""
    assert COMPLETE[0] == "is the studio open on public holidays"
    utterance = complete_utterance(0)
    committed = first_commit(InlineModels(transcriber, model), 0, utterance, 7)
    assert committed is not None and committed.reason in ("final", "confident")
    assert "holidays" in committed.text.lower()
    w = windows_for(7)
    assert committed.t_committed - utterance.end_ms <= w.confident_ms + 60  # VAD's tail


def test_without_the_model_the_same_question_waits_unless_punctuated_or_falling(
    transcriber: Transcriber,
) -> None:
    decisions: list[EndpointingStep] = []
    memo = InlineModels(transcriber, None)
    committed = first_commit(memo, 0, complete_utterance(0), 7, decisions)
    assert committed is not None
    # Without the model only the words and the voice's fall or rise can finish it.
    falls = [d.semitones for d in decisions if isinstance(d, Fall)]
    rises = [d.semitones for d in decisions if isinstance(d, Rise)]
    fell = bool(falls) and falls[-1] is not None and falls[-1] <= -FALL_SEMITONES
    rose = bool(rises) and rises[-1] is not None and rises[-1] >= RISE_SEMITONES
    text = committed.text
    hurried = (fell and text_shape(text) != "fragment") or (rose and asks_question(text))
    punctuated = text.rstrip()[-1:] in ".?!"
    expected = "final" if hurried else "confident" if punctuated else "silence"
    assert committed.reason == expected, decisions


def test_a_listener_hands_a_current_verdict_to_the_endpointer_and_records_it() -> None:
    """The hook's future answers after the pause began; a verdict is recorded as a decision."""
    verdicts: list[Future[float]] = []

    def judge(pcm: Float32) -> Future[float]:
        future: Future[float] = Future()
        verdicts.append(future)
        return future

    def transcribe(pcm: Float32, language: str) -> Future[Transcript]:
        future: Future[Transcript] = Future()
        # No question (its voice rises: a question's words would close it on the rise).
        future.set_result(Transcript("my card was charged twice this month"))
        return future

    listener = Listener(transcribe, judge_turn=judge)
    decisions: list[str] = []
    listener.on_decision = lambda _t, step: decisions.append(kind_of(type(step)))
    utterance = complete_utterance(1).audio  # a real voice, then silence
    events = []
    block = SAMPLE_RATE // 50
    for start in range(0, len(utterance), block):
        events += listener.feed(utterance[start : start + block], SAMPLE_RATE, start // 16, False)
        if verdicts and not verdicts[-1].done():
            verdicts[-1].set_result(0.99)
    assert "turn_model" in decisions
    closes = [e.reason for e in events if isinstance(e, TurnCommitted)]
    assert closes and closes[0] == TurnClose.CONFIDENT


@pytest.mark.parametrize(
    ("guess", "asked"),
    [
        ("is the studio open on public holidays", True),  # no punctuation: the model decides
        ("Is the studio open on public holidays?", False),  # the words decide
        ("I'd like to book the", False),  # a fragment waits whatever the model says
    ],
)
def test_the_turn_model_is_asked_only_when_the_words_leave_the_verdict_open(
    guess: str, asked: bool
) -> None:
    judged: list[int] = []

    def judge(pcm: Float32) -> Future[float]:
        judged.append(len(pcm))
        future: Future[float] = Future()
        future.set_result(0.99)
        return future

    def transcribe(pcm: Float32, language: str) -> Future[Transcript]:
        future: Future[Transcript] = Future()
        future.set_result(Transcript(guess))
        return future

    listener = Listener(transcribe, judge_turn=judge)
    utterance = complete_utterance(1).audio
    block = SAMPLE_RATE // 50
    for start in range(0, len(utterance), block):
        listener.feed(utterance[start : start + block], SAMPLE_RATE, start // 16, False)
    assert bool(judged) == asked


def test_the_pauses_table_says_each_figure() -> None:
    figures = {
        "false_cutoff_fraction": 0.0,
        "false_cutoff_by_patience": {"7": 0.0, "0": 0.5, "10": 0.0},
        "false_cutoff_by_kind": {"sentences": 0.0, "questions": 0.042},
        "afterthought_cutoff_fraction": 0.5,
        "early_commit_fraction": 0.1,
        "commit_after_end_ms": {
            "punctuated": 730.0,
            "unpunctuated": 740.0,
            "worst": 1650,
            "unpunctuated_count": 3,
        },
        "pause_set": {"paused": 72, "paused_questions": 24, "complete": 44, "afterthoughts": 48},
        "turn_model_ms": 95.0,
    }
    lines = pauses_table(figures).splitlines()
    assert lines[0] == "utterances: 72 paused (24 of them questions), 44 complete, 48 afterthoughts"
    assert "0: 0.5" in lines[1] and "by kind: sentences 0.0, questions 0.042" in lines[1]
    assert lines[2] == "afterthoughts answered after their first statement: 0.5"
    assert "unpunctuated 740.0 ms (of 3)" in lines[4]
    assert lines[5] == "turn model: 95.0 ms a call"
