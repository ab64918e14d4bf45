"""sandbox bench --languages: the run end to end through the virtual devices (real models,
real calls, real espeak-ng callers), the codes it takes and refuses, and the cut check that
reads the speaker leg against an espeak rendering."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sandbox.audio.clauses import take_ready
from sandbox.audio.espeak_tts import EspeakVoice
from sandbox.audio.resample import as_float32, resample
from sandbox.audio.stt import SAMPLE_RATE
from sandbox.audio.voices import catalog
from sandbox.wire import pb
from sandbox_bench.language_cuts import played_words
from sandbox_bench.language_keys import LANGUAGES
from sandbox_bench.language_set import load_lines, served

ROOT = Path(__file__).resolve().parent.parent
#: What each language's row holds, and its type (each measured in the quick run).
ROW = {
    "recognizer": str,
    "recognizer_load_s": float,
    "recognizer_rss_mb": float,
    "turns": int,
    "unanswered": int,
    "word_error_rate": float,
    "first_audio_ms": float,
    "first_audio_max_ms": int,
    "close_reasons": dict,
    "onset_to_silence_ms": float,
    "barge_ins_landed_fraction": float,
    "backchannels_answered_fraction": float,
    "backchannels_went_on_fraction": float,
    "cuts": int,
    "cuts_exact_fraction": float,
    "cuts_max_words_off": int,
    "cuts_checked_by": str,
    "app_peak_rss_mb": float,
    "heard": list,
}


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sandbox.cli", "bench", *args],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
        check=False,
    )


@pytest.mark.audio
@pytest.mark.slow  # its kind in CI: test_bench's quick run through the same virtual devices
def test_a_quick_german_run_reports_every_figure_beside_english() -> None:
    done = _bench("--languages", "de", "--quick", "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout)  # one JSON object: nothing else on stdout
    assert set(figures) == {key.name for key in LANGUAGES.keys} | {"targets"}
    assert list(figures["languages"]) == ["en", "de"]  # English first, the comparison's row
    assert "language 1/2: en …" in done.stderr and "language 2/2: de …" in done.stderr
    for code, row in figures["languages"].items():
        for key, kind in ROW.items():
            value = row[key]
            ok = isinstance(value, kind) or (kind is float and isinstance(value, int))
            assert ok, (code, key, value)
        assert row["turns"] + row["unanswered"] == 3 == figures["language_turns"]
        assert 0 <= row["word_error_rate"] < 2
        assert 0 < row["first_audio_ms"] <= row["first_audio_max_ms"] < 8000
        assert row["cuts"] >= 1  # the barge-in cut the long reply
        assert 0 < row["recognizer_load_s"] < 120 and row["recognizer_rss_mb"] > 20
        assert [turn["said"] for turn in row["heard"]] == list(load_lines()[code].questions)
    assert figures["languages"]["de"]["recognizer"] == "Whisper base (multilingual)"
    assert figures["languages"]["en"]["recognizer"] == "Whisper tiny.en"
    ratio = figures["languages"]["de"]["first_audio_ratio_to_english"]
    assert ratio == round(
        figures["languages"]["de"]["first_audio_ms"] / figures["languages"]["en"]["first_audio_ms"],
        2,
    )
    assert figures["languages_first_audio_ratio_max"] == ratio
    assert set(figures["targets"]) == set(LANGUAGES.bounds())


def test_unknown_and_unserved_codes_are_refused_in_one_line_before_any_call() -> None:
    for code, why in (("xx", "is no catalog language"), ("or", "is not served here")):
        done = _bench("--languages", f"de,{code}", "--quick")
        assert done.returncode == 2, done.stderr
        line = done.stderr.strip().splitlines()[-1]
        assert line.startswith("sandbox bench: error: argument --languages: "), line
        assert f"'{code}' {why}; the bench measures: en, de" in line
        assert "language 1/" not in done.stderr


def test_every_served_language_has_its_lines_and_the_file_only_served_ones() -> None:
    lines = load_lines()
    assert set(served()) <= set(lines)
    for code, said in lines.items():
        turns = said.turns()
        assert len(turns) >= 12, code
        assert {t.kind for t in turns} == {"question", "statement"}
        assert len({t.voice.name for t in turns}) == 2
        assert said.backchannels and said.objections and said.long != said.short


@pytest.mark.parametrize("language", [pb.LANGUAGE_DE, pb.LANGUAGE_HI], ids=["de", "hi"])
def test_a_cut_leg_shows_the_words_that_had_started_however_the_clauses_were_cut(
    language: int,
) -> None:
    # Said as the app says a reply: clause by clause, by the espeak voice the bench checks.
    code = "de" if language == pb.LANGUAGE_DE else "hi"
    text = load_lines()[code].long
    voice = EspeakVoice.load(catalog()[pb.VOICE_ESPEAK_MALE])
    pieces: list[str] = []
    rest, first = text, True
    while rest:
        ready, rest = take_ready(rest, first=first)
        first = False
        if not ready:
            pieces.append(rest)
            break
        pieces += ready
    audio: list[np.ndarray] = []
    starts: list[int] = []
    at = 0
    for piece in pieces:
        for clip in voice.synthesize(piece, language=language):
            samples = resample(as_float32(clip.samples), clip.sample_rate, SAMPLE_RATE)
            starts += [at + w.start * SAMPLE_RATE // clip.sample_rate for w in clip.words]
            audio.append(samples)
            at += len(samples)
    leg = np.concatenate(audio)
    for words in range(1, len(starts), 3):
        cut = starts[words] - SAMPLE_RATE // 100  # 10 ms before the next word starts
        low, high = played_words(leg[:cut], text, code)
        assert low <= words <= high and high - low <= 1, (words, low, high)
    assert played_words(leg[:0], text, code) == (0, 0)
