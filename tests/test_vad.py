"""webrtcvad on real synthetic speech, silence and noise."""

from __future__ import annotations

import numpy as np
import pytest
from caller_audio import espeak, join, noise, silence

from sandbox.audio.echo import EchoCanceller
from sandbox.audio.resample import Float32, as_int16
from sandbox.audio.vad import FRAME_MS, FrameVad

SENTENCE = "Hello, I need to change my reservation to Friday evening."


def voiced(pcm: Float32) -> list[bool]:
    vad = FrameVad()
    n = len(pcm) // vad.frame_samples
    frames = pcm[: n * vad.frame_samples].reshape(n, vad.frame_samples)
    return [vad.is_speech(as_int16(frame)) for frame in frames]


def test_speech_is_voiced() -> None:
    flags = voiced(espeak(SENTENCE))
    assert sum(flags) / len(flags) > 0.9


def test_silence_is_not() -> None:
    assert not any(voiced(silence(3000)))


def test_quiet_room_noise_is_not() -> None:
    flags = voiced(noise(5000, level=0.01))
    assert sum(flags) / len(flags) < 0.02


def test_fan_noise_through_the_noise_suppressor_is_not_but_speech_in_it_is() -> None:
    """Loud broadband noise fools the VAD alone; the canceller's suppressor cleans it first."""
    speech = espeak(SENTENCE)
    fan = noise(3000 + len(speech) * 1000 // 16000 + 2000, level=0.05, seed=3)
    mixed = fan.copy()
    mixed[48000 : 48000 + len(speech)] += speech
    canceller = EchoCanceller()
    cleaned = np.concatenate(
        [canceller.process(mixed[i : i + 480], 16000) for i in range(0, len(mixed), 480)]
    )
    flags = voiced(cleaned)
    per_second = 1000 // FRAME_MS
    noise_only = flags[per_second : 3 * per_second - 3]  # after a second of adaptation
    in_speech = flags[3 * per_second + 3 : 3 * per_second + len(speech) // 480 - 3]
    assert sum(noise_only) / len(noise_only) < 0.05
    assert sum(in_speech) / len(in_speech) > 0.8
    raw = voiced(mixed[16000:48000])
    assert sum(raw) / len(raw) > 0.5  # the same noise, unsuppressed, reads as speech


def test_a_one_word_answer_is_voiced_only_where_spoken() -> None:
    flags = voiced(join(silence(500), espeak("Yes."), silence(500)))
    assert any(flags) and not any(flags[:10]) and not any(flags[-10:])


def test_frames_must_be_30_ms_of_int16() -> None:
    vad = FrameVad()
    with pytest.raises(ValueError, match="480 int16"):
        vad.is_speech(np.zeros(160, dtype=np.int16))
    with pytest.raises(ValueError, match="480 int16"):
        vad.is_speech(np.zeros(480, dtype=np.float32))
    with pytest.raises(ValueError, match="8/16/32/48"):
        FrameVad(sample_rate=22050)
