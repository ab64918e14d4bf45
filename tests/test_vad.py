"""webrtcvad on real synthetic speech, silence and noise."""

from __future__ import annotations

import numpy as np
import pytest
from caller_audio import espeak, join, noise, silence

from sandbox.audio.echo_canceller import EchoCanceller
from sandbox.audio.resample import Float32, as_int16
from sandbox.audio.vad import FRAME_MS, NOISE_MEMORY_MS, FrameVad

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
    # The gaps between words sit at the suppressed noise's level: silence, not voice.
    assert sum(in_speech) / len(in_speech) > 0.65
    last_voiced_end = (max(i for i, flag in enumerate(flags) if flag) + 1) * FRAME_MS
    speech_end = 3000 + int(np.flatnonzero(np.abs(speech) > 0.005)[-1]) * 1000 // 16000
    assert abs(last_voiced_end - speech_end) <= FRAME_MS
    raw = voiced(mixed[16000:48000])
    assert sum(raw) / len(raw) > 0.5  # the same noise, unsuppressed, reads as speech


@pytest.mark.parametrize(
    "room", [None, 0.001, 0.003, 0.01], ids=["digital-silence", "-60dB", "-50dB", "quiet-room"]
)
def test_the_voice_ends_where_the_speech_does_not_three_frames_later(room: float | None) -> None:
    """webrtcvad's own hangover calls ~90 ms after a sentence voiced; the level gate ends the
    voice within a frame of the speech's last sample, in silence or in a room's noise."""
    speech = espeak(SENTENCE)
    loud = np.flatnonzero(np.abs(speech) > 0.005)
    speech = speech[: loud[-1] + 1]
    pcm = join(silence(3500), speech, silence(1000))
    if room is not None:
        pcm = pcm + noise(len(pcm) * 1000 // 16000 + 1, level=room, seed=5)[: len(pcm)]
    flags = voiced(pcm)
    last_voiced_end = (max(i for i, flag in enumerate(flags) if flag) + 1) * FRAME_MS
    speech_end = 3500 + len(speech) * 1000 // 16000
    assert 0 <= last_voiced_end - speech_end <= FRAME_MS
    learnt = NOISE_MEMORY_MS // FRAME_MS  # the room is known from here on
    assert sum(flags[:learnt]) <= 0.03 * learnt and not any(flags[learnt : 3500 // FRAME_MS])
    assert sum(flags) > 0.8 * len(speech) / 480


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
