"""A voice of your own through ``--voice module:Class``: a voice written here (each word a
tone, at 16 kHz) speaks a real-audio call in place of a catalog voice, and a class that is
no voice is refused in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import soundfile

from sandbox.audio.tts import Clip, TroubleSink, WordSpan
from sandbox.audio.voice_engine import VoiceEngine
from sandbox.audio.wordalign import split_words
from sandbox.paths import HOME_ENV
from sandbox.wire import pb

TESTS = Path(__file__).resolve().parent
RATE = 16000
TONE_HZ = 440
WORD, GAP = RATE // 4, RATE // 10


class Toned:
    """Speaks as amy (whose Piper model is not installed here), in English and German: each
    word a quarter second of 440 Hz, a tenth of a second apart."""

    name = "amy"
    sample_rate = RATE
    languages = (pb.LANGUAGE_EN, pb.LANGUAGE_DE)

    def synthesize(
        self, text: str, trouble: TroubleSink | None = None, *, language: int | None = None
    ) -> Iterator[Clip]:
        tokens = split_words(text)
        if not tokens:
            return
        tone = (8000 * np.sin(2 * np.pi * TONE_HZ * np.arange(WORD) / RATE)).astype(np.int16)
        step = WORD + GAP
        words = tuple(WordSpan(t.text, i * step, i * step + WORD) for i, t in enumerate(tokens))
        audio = np.concatenate([np.concatenate([tone, np.zeros(GAP, np.int16)])] * len(tokens))
        yield Clip(audio, RATE, words, text)


class Mute:
    """Not a voice: it cannot synthesize."""

    name = "amy"
    sample_rate = RATE
    languages = (pb.LANGUAGE_EN,)


class Nameless(Toned):
    """A voice that speaks as no Voice of the catalog."""

    name = "gertrude"


def sandbox(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``sandbox ARGS`` in its own process, this folder importable (where the voices are)."""
    path = os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "sandbox.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, HOME_ENV: str(home), "PYTHONPATH": path},
        timeout=240,
    )


def script(tmp_path: Path) -> Path:
    path = tmp_path / "call.toml"
    path.write_text('[[step]]\nsay = "hello there"\n')
    return path


def test_the_voice_written_here_is_a_voice() -> None:
    assert isinstance(Toned(), VoiceEngine) and not isinstance(Mute(), VoiceEngine)


def test_a_voice_of_your_own_needs_a_call_that_speaks(tmp_path: Path) -> None:
    call = ("call", "--script", str(script(tmp_path)), "--voice", "test_voice_plugin:Toned")
    done = sandbox(tmp_path, *call)
    assert done.returncode == 1
    assert done.stderr == (
        "sandbox call: --voice test_voice_plugin:Toned: a voice of your own speaks: add "
        "--audio real\n"
    )


@pytest.mark.audio
def test_a_voice_of_your_own_speaks_a_real_audio_call_word_by_word(tmp_path: Path) -> None:
    report, speaker = tmp_path / "r.json", tmp_path / "speaker.wav"
    done = sandbox(
        tmp_path / "home",
        *("call", "--audio", "real", "--script", str(script(tmp_path)), "--brain", "echo"),
        *("--voice", "test_voice_plugin:Toned", "--speak-language", "de"),
        *("--hear-language", "en", "--speaker", str(speaker), "--report", str(report)),
    )
    assert done.returncode == 0, done.stderr
    record = json.loads(report.read_text())
    assert record["settings"].startswith("voice amy · speak de · hear en")
    units = record["units"]
    assert [u["fate"] for u in units] == ["played", "played"]
    assert all(u["heard"] == u["generated"] for u in units)
    # What the speaker played: the tones, one burst per word of both units, at the
    # speaker's own rate (the voice's 16 kHz clips resampled on the way).
    samples, rate = soundfile.read(speaker, dtype="int16")
    assert rate != RATE
    # A word's tone is loud throughout (its 20 ms windows never fall quiet); the gaps are
    # silent: so the loud runs of 20 ms windows count the words played.
    window = rate // 50
    frames = np.abs(samples[: len(samples) // window * window].astype(np.int32))
    loud = frames.reshape(-1, window).max(axis=1) > 2000
    runs = int(np.count_nonzero(np.diff(loud.astype(np.int8)) == 1)) + int(loud[0])
    assert runs == sum(len(u["generated"].split()) for u in units)
    spectrum = np.abs(np.fft.rfft(samples.astype(np.float64)))
    assert abs(np.argmax(spectrum) * rate / len(samples) - TONE_HZ) < 5


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("no_such_module_here:Voice", "cannot import no_such_module_here: ModuleNotFoundError"),
        ("test_voice_plugin:Absent", "test_voice_plugin has no class Absent"),
        ("test_voice_plugin:Mute", "Mute is not a voice (sandbox.audio.voice_engine.VoiceEngine"),
        ("test_voice_plugin:Nameless", "its name is not a catalog voice: unknown voice"),
        ("test_voice_plugin:", "name a class as module:Class"),
    ],
)
def test_a_class_that_is_no_voice_is_refused_in_one_line(
    tmp_path: Path, spec: str, words: str
) -> None:
    call = ("call", "--audio", "real", "--speaker", "none", "--script", str(script(tmp_path)))
    done = sandbox(tmp_path, *call, "--voice", spec)
    assert done.returncode == 1
    assert done.stderr.startswith(f"sandbox call: --voice {spec}: ") and words in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
