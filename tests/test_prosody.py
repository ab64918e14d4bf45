"""Final lowering: the pitch track on pure tones, and the fall on espeak-ng's real voices."""

from __future__ import annotations

import numpy as np
import pytest

from sandbox.audio.endpointer import FALL_SEMITONES
from sandbox.audio.prosody import SAMPLE_RATE, final_fall, pitch_track
from sandbox.audio.resample import Float32
from sandbox.bench.pause_set import complete_utterance, paused_utterance


def voice(hz: list[float], seconds: float) -> Float32:
    """A buzz with harmonics whose pitch glides through ``hz`` (evenly spaced in time)."""
    n = int(seconds * SAMPLE_RATE)
    f0 = np.interp(np.arange(n), np.linspace(0, n - 1, len(hz)), hz)
    phase = 2 * np.pi * np.cumsum(f0) / SAMPLE_RATE
    buzz = np.sum([np.sin(k * phase) / k for k in range(1, 6)], axis=0)
    return np.asarray(0.2 * buzz, dtype=np.float32)


def silence(seconds: float) -> Float32:
    return np.zeros(int(seconds * SAMPLE_RATE), dtype=np.float32)


@pytest.mark.parametrize("hz", [90.0, 150.0, 240.0, 380.0])
def test_the_pitch_of_a_steady_voice_is_its_fundamental_not_an_octave_off(hz: float) -> None:
    track = pitch_track(voice([hz, hz], 0.5))
    assert np.nanmedian(track) == pytest.approx(hz, rel=0.03)
    assert np.mean(np.isnan(track)) < 0.1


def test_silence_and_noise_have_no_pitch() -> None:
    rng = np.random.default_rng(7)
    assert np.all(np.isnan(pitch_track(silence(0.5))))
    noise = (0.1 * rng.standard_normal(SAMPLE_RATE)).astype(np.float32)
    assert np.mean(np.isnan(pitch_track(noise))) > 0.9
    assert final_fall(noise) is None


def test_a_voice_that_falls_at_its_end_reads_as_a_fall_of_that_many_semitones() -> None:
    # Level at 150 Hz, then down to 110 Hz over the last 300 ms: -5.4 semitones.
    pcm = np.concatenate([voice([150, 150], 1.2), voice([150, 110], 0.3), silence(0.15)])
    fall = final_fall(pcm)
    assert fall is not None and -6.0 < fall < -3.5


@pytest.mark.parametrize(("end_hz", "low", "high"), [(150, -0.5, 0.5), (190, 2.0, 5.0)])
def test_a_level_or_rising_end_is_no_fall(end_hz: float, low: float, high: float) -> None:
    pcm = np.concatenate([voice([150, 150], 1.2), voice([150, end_hz], 0.3), silence(0.15)])
    fall = final_fall(pcm)
    assert fall is not None and low < fall < high


def test_too_little_voice_says_nothing() -> None:
    assert final_fall(np.concatenate([voice([150, 110], 0.2), silence(0.2)])) is None
    assert final_fall(silence(0.01)) is None


def test_espeak_falls_at_a_statements_end_and_not_where_a_caller_stops_to_think() -> None:
    """Real espeak-ng voices: "I need to cancel my booking for tomorrow." falls; "I'd like to
    book …" cut where a caller pauses, from the whole sentence's rendering, does not."""
    complete = complete_utterance(2)  # "I need to cancel my booking for tomorrow."
    fall = final_fall(complete.audio[: complete.end_ms * 16 + 2400])
    assert fall is not None and fall <= -FALL_SEMITONES - 1
    paused = paused_utterance(0)  # "I'd like to book … a table for four on Friday evening"
    assert paused.pause is not None
    head = final_fall(paused.audio[: paused.pause[0] * 16 + 2400])
    assert head is None or head > -FALL_SEMITONES + 1
