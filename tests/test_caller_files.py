"""A caller's audio file as the microphone: any WAV, FLAC or OGG soundfile reads, at any rate
and channel count (issue 30.2: a 32-bit float WAV written by sox was refused "unknown format:
65534"). The files are made here with soundfile, as sox and audio editors write them."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import numpy as np
import pytest
import soundfile
from caller_audio import RATE, espeak, join, silence, word_errors
from ui_tmux import sandbox_run

from sandbox.audio.mic import read_caller_audio
from sandbox.audio.resample import Float32, resample
from sandbox.cli import main

FILE_RATE = 44100
#: soundfile's (format, subtype) for each kind of file a caller might bring.
KINDS = {
    "wav": ("WAVEX", "FLOAT"),  # WAVE_FORMAT_EXTENSIBLE, 32-bit float: what sox writes
    "flac": ("FLAC", "PCM_16"),
    "ogg": ("OGG", "VORBIS"),
}
#: Model loading, the greeting, the file spoken in real time and answered.
CALL_WAIT_S = 180.0


def stereo_file(path: Path, mono: Float32) -> Path:
    """``mono`` (16 kHz) as a 44.1 kHz stereo file of ``path``'s kind: the voice on the left,
    a quieter copy on the right, so a reader that kept one channel would be found out."""
    wide = resample(mono, RATE, FILE_RATE)
    file_format, subtype = KINDS[path.suffix[1:]]
    both = np.stack([wide, 0.5 * wide], axis=1)
    soundfile.write(path, both, FILE_RATE, subtype=subtype, format=file_format)
    return path


@pytest.mark.parametrize("kind", list(KINDS))
def test_any_file_is_read_as_mono_at_its_own_rate(kind: str, tmp_path: Path) -> None:
    tone = (0.4 * np.sin(2 * np.pi * 440 * np.arange(RATE) / RATE)).astype(np.float32)
    path = stereo_file(tmp_path / f"caller.{kind}", tone)
    if kind == "wav":
        assert struct.unpack_from("<H", path.read_bytes(), 20) == (65534,)
    samples, rate = read_caller_audio(path)
    assert rate == FILE_RATE and samples.dtype == np.int16 and samples.ndim == 1
    assert abs(len(samples) - FILE_RATE) < 2048  # Vorbis may pad its last block
    # The two channels mixed: 0.4 on the left, 0.2 on the right, 0.3 together.
    peak = np.abs(samples[1000:-3000]).max() / 32768
    assert peak == pytest.approx(0.3, abs=0.02)


def test_a_file_that_is_not_audio_is_refused_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "caller.flac"
    bad.write_bytes(b"not audio at all")
    assert main(["run", "--mic", str(bad), "--speaker", "none"]) == 1
    err = capsys.readouterr().err
    assert f"cannot read {bad} as a WAV microphone" in err and "Traceback" not in err


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
@pytest.mark.parametrize(
    "kind",
    [
        "wav",
        # Its kind runs by default: the float WAV; FLAC and OGG go through the same reader.
        pytest.param("flac", marks=pytest.mark.slow),
        pytest.param("ogg", marks=pytest.mark.slow),
    ],
)
def test_sandbox_run_mic_takes_a_float_stereo_file(kind: str, tmp_path: Path) -> None:
    """``sandbox run --mic FILE --speaker none``: the file is the caller, heard and answered,
    and the call ends with it (no devices needed)."""
    said = "Hello, can you help me?"
    path = stereo_file(tmp_path / f"caller.{kind}", join(silence(200), espeak(said), silence(300)))
    report = tmp_path / "report.json"
    args = ["--mic", str(path), "--speaker", "none", "--idle-ms", "0", "--report", str(report)]
    with sandbox_run(args, {"VOQALIZE_SANDBOX_HOME": str(tmp_path / "home")}) as term:
        term.wait_for(lambda s: "the call has ended" in s, "the call to end", CALL_WAIT_S)
        term.keys("C-q")
        screen = term.wait_for(lambda s: "EXIT=" in s, "the app to exit")
        assert "EXIT=0" in screen and "Traceback" not in screen
    data = json.loads(report.read_text())
    assert data["caller_turns"] and word_errors(said, data["caller_turns"][0]) <= 2
