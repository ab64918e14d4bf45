"""μ-law legs: the codec against G.711's table points, and a file read to its end even when
its writer died before the header caught up."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sandbox.record import mulaw
from sandbox.record.legs import STORED_RATE, AudioLeg, read_leg


def test_the_codec_keeps_speech_within_g711s_step() -> None:
    pcm = (np.sin(np.arange(16_000) / 7) * 20_000).astype(np.int16)
    back = mulaw.decode(mulaw.encode(pcm))
    # μ-law's step grows with the level: within 1/16 of the magnitude (plus the bias) always.
    assert np.all(np.abs(back.astype(int) - pcm) <= np.abs(pcm.astype(int)) // 16 + 132)
    assert mulaw.encode(np.array([0, 32767, -32768], dtype=np.int16)).tolist() == [0xFF, 0x80, 0x00]


def test_a_file_reads_to_its_end_whatever_the_header_says(tmp_path: Path) -> None:
    path = tmp_path / "leg.wav"
    with path.open("w+b") as out:
        mulaw.write_header(out, 16_000, 0)
        total = mulaw.append(out, 0, np.full(800, 1000, dtype=np.int16))
        total = mulaw.append(out, total, np.full(800, -1000, dtype=np.int16))
        out.seek(0, 2)
        out.write(mulaw.encode(np.zeros(400, dtype=np.int16)).tobytes())  # header not updated
    samples, rate = mulaw.read(path)
    assert rate == 16_000 and total == 1_600 and len(samples) == 2_000
    path.write_bytes(b"RIFF....WAVE")
    with pytest.raises(mulaw.WavError, match="too short"):
        mulaw.read(path)


def test_a_leg_ends_with_the_call_whatever_the_device_still_delivers(tmp_path: Path) -> None:
    leg = AudioLeg(tmp_path / "mic.wav", STORED_RATE)
    block = np.full(STORED_RATE // 50, 0.25, dtype=np.float32)  # 20 ms
    for t_ms in range(0, 600, 20):
        leg.add(block, t_ms)
    leg.end_at(600)  # the call ended; the microphone runs on until the engine stops
    for t_ms in range(600, 1000, 20):
        leg.add(block, t_ms)
    leg.close()
    samples, rate = read_leg(tmp_path / "mic.wav")
    assert rate == STORED_RATE and len(samples) == 600 * STORED_RATE // 1000
