"""The voice's last movement: the pitch track on pure tones, and the fall and the rise on
espeak-ng's real voices."""

from __future__ import annotations

import numpy as np
import pytest
from caller_audio import espeak, join
from caller_audio import silence as quiet

from sandbox.audio.endpointer import (
    FALL_SEMITONES,
    HIGH_END_SEMITONES,
    LIFT_SEMITONES,
    RISE_SEMITONES,
)
from sandbox.audio.prosody import SAMPLE_RATE, final_fall, final_rise, mend_octaves, pitch_track
from sandbox.audio.resample import Float32
from sandbox_bench.pause_set import complete_utterance, paused_set, paused_utterance


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


def test_a_short_words_fall_is_read_and_too_little_voice_says_nothing() -> None:
    # "Yes." is about 0.2 s of voice: enough for its own fall.
    short = final_fall(
        np.concatenate([voice([150, 150], 0.1), voice([150, 110], 0.1), silence(0.2)])
    )
    assert short is not None and short < -FALL_SEMITONES
    assert final_fall(np.concatenate([voice([150, 110], 0.1), silence(0.2)])) is None
    assert final_fall(silence(0.01)) is None


def test_a_short_answer_falls_from_its_peak_and_a_long_turn_from_its_median() -> None:
    """ "That's right." in a neural voice: a brief accent, then back down to where it began,
    so the end is at the turn's median but well below its peak. A turn this short is
    measured from its peak; the same contour at the end of a long level turn is no fall."""
    answer = voice([160, 160, 210, 170, 160], 0.45)  # under SHORT_VOICED_FRAMES of voice
    short = final_fall(np.concatenate([answer, silence(0.15)]))
    assert short is not None and short < -FALL_SEMITONES
    level = voice([160, 160], 1.5)
    long = final_fall(np.concatenate([level, answer, silence(0.15)]))
    assert long is not None and long > -FALL_SEMITONES
    flat = final_fall(np.concatenate([voice([170, 170], 0.45), silence(0.15)]))
    assert flat is not None and flat > -FALL_SEMITONES  # a level short word: no fall


def test_espeak_falls_at_a_statements_end_and_not_where_a_caller_stops_to_think() -> None:
    """Real espeak-ng voices: "I need to cancel my booking for tomorrow." falls; "I'd like to
    book …" cut where a caller pauses, from the whole sentence's rendering, does not."""
    complete = complete_utterance(2)  # "I need to cancel my booking for tomorrow."
    fall = final_fall(complete.audio[: complete.end_ms * 16 + 2400])
    assert fall is not None and fall <= -FALL_SEMITONES - 1
    paused = paused_utterance(0)  # "I'd like to book … a table for four on Friday evening"
    assert paused.pause is not None
    head = final_fall(paused.audio[: paused.pause[0] * 16 + 2400])
    assert head is None or head > -FALL_SEMITONES + 0.3


@pytest.mark.parametrize(
    ("end_hz", "low", "high"), [(190, 2.0, 4.5), (150, -0.3, 0.3), (120, -4.5, -2.0)]
)
def test_the_rise_is_read_over_the_last_syllable(end_hz: float, low: float, high: float) -> None:
    # Level at 150 Hz, then to end_hz over the last 150 ms: 190 Hz is +4.1 semitones.
    pcm = np.concatenate([voice([150, 150], 1.0), voice([150, end_hz], 0.15), silence(0.3)])
    rise = final_rise(pcm)
    assert rise is not None and low < rise < high


def test_the_silence_after_the_voice_reads_as_no_pitch_not_a_rise() -> None:
    """A 40 ms frame running on into the silence correlates a shortened voice: it used to
    read a pitch far above the voice's, a "rise" at the end of every level turn."""
    level = np.concatenate([voice([150, 150], 1.0), silence(0.3)])
    track = pitch_track(level)
    assert np.nanmax(track) == pytest.approx(150, rel=0.03)
    rise = final_rise(level)
    assert rise is not None and abs(rise) < 0.3
    assert final_rise(np.concatenate([voice([150, 150], 0.04), silence(0.3)])) is None


def test_espeak_rises_at_a_yes_no_questions_end_and_not_where_a_caller_stops_to_think() -> None:
    """Real espeak-ng: "Do you take credit cards?" and "Is the shop open on Sunday?" rise on
    their last syllable; paused questions ("Can I book … a table", "Could you tell … me"),
    cut where the caller stops, from the whole question's rendering, do not."""
    for question in ("Do you take credit cards?", "Is the shop open on Sunday?"):
        rise = final_rise(join(espeak(question), quiet(300)))
        assert rise is not None and rise >= RISE_SEMITONES + 0.5, question
    for index in (48, 54, 66):  # paused questions: "Can I book", "Could you tell", "Which..."
        paused = paused_utterance(index)
        assert paused.asked and paused.pause is not None
        head = final_rise(paused.audio[: (paused.pause[0] + 90) * 16])
        assert head is None or head < RISE_SEMITONES - 0.5, paused.text


def _lifted(pcm: Float32) -> bool:
    rise, fall = final_rise(pcm), final_fall(pcm)
    if rise is None or fall is None:
        return False
    return rise >= LIFT_SEMITONES and fall >= HIGH_END_SEMITONES


def test_espeak_lifts_a_level_questions_end_and_no_paused_caller_lifts_that_high() -> None:
    """Real espeak-ng ends "Could you spell that for me?" on an unstressed "me" that lifts
    short of a rise and ends well above the turn's median; the first half of no paused
    utterance in the pause set does both, read from two starts a few milliseconds apart (the
    pitch track's frames fall differently on the voice)."""
    for question in ("Could you spell that for me?", "Can you hold the line for me?"):
        pcm = join(espeak(question), quiet(90))
        rise = final_rise(pcm)
        assert rise is not None and rise < RISE_SEMITONES, question  # no full rise
        assert _lifted(pcm), question
    for paused in paused_set():
        assert paused.pause is not None
        head = paused.audio[: (paused.pause[0] + 90) * 16]
        for start in (0, 80):
            assert not _lifted(head[start:]), (paused.text, paused.voice, start)


def _track(*semitones: float) -> np.ndarray:
    return np.asarray([np.nan if np.isnan(st) else 100.0 * 2 ** (st / 12) for st in semitones])


def test_an_octave_error_in_the_track_is_moved_back_to_the_voice() -> None:
    nan = float("nan")
    # A level voice whose last frames the tracker read an octave up (half the period): the
    # end is the voice's again, not a rise of 12 semitones.
    level = [5.0] * 30 + [5.5, 17.4, 17.6, 17.3]
    assert np.allclose(mend_octaves(_track(*level)), _track(*level[:31], 5.4, 5.6, 5.3))
    # Two octaves up, across a short unvoiced gap: moved down two.
    high = [5.0] * 30 + [nan] * 5 + [29.2, 28.8]
    assert np.allclose(mend_octaves(_track(*high)), _track(*high[:35], 5.2, 4.8), equal_nan=True)
    # An octave down is a creaky voice, kept; and the voice coming back from it is no error.
    creak = [5.0] * 30 + [-7.0, -7.2, -7.1] + [5.0] * 5
    assert np.allclose(mend_octaves(_track(*creak)), _track(*creak))
    # A real glide, a semitone a frame, is the voice: 12 semitones over 12 frames stay.
    glide = [5.0] * 30 + [5.0 + k for k in range(1, 13)]
    assert np.allclose(mend_octaves(_track(*glide)), _track(*glide))
    assert np.all(np.isnan(mend_octaves(_track(nan, nan))))


def test_a_short_answers_last_syllable_read_an_octave_up_is_a_fall_again() -> None:
    """espeak-ng's "That's right." (en-us+m3, 150 words a minute): its last syllable's weak
    end read an octave up made a 15-semitone "rise" of a 6-semitone fall."""
    pcm = join(espeak("That's right.", voice="en-us+m3", wpm=150), quiet(300))
    fall, rise = final_fall(pcm), final_rise(pcm)
    assert fall is not None and fall <= -FALL_SEMITONES
    assert rise is None or rise < RISE_SEMITONES
