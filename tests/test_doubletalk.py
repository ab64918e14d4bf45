"""The double-talk detector: a voice over the bot, judged on the raw microphone against the
echo's learnt coupling (levels on a fake clock of frames)."""

from __future__ import annotations

import numpy as np

from sandbox.audio.doubletalk import DoubleTalk
from sandbox.audio.echo_canceller import EchoCanceller

BOT = 0.2  # the bot's recent peak level (RMS)


def learn(detector: DoubleTalk, mic: float, frames: int = 50) -> None:
    """Frames of the bot talking with only its echo (at ``mic``) in the microphone."""
    for _ in range(frames):
        assert not detector.feed(mic, BOT, raw_voiced=mic > 0.01, cleaned_voiced=False)


def test_nothing_fires_until_the_echo_has_been_heard_for_a_while() -> None:
    detector = DoubleTalk()
    assert detector.coupling is None
    assert not detector.feed(0.5, BOT, raw_voiced=True, cleaned_voiced=False)
    learn(detector, 0.0, frames=16)
    assert detector.coupling == 0.0


def test_on_headphones_any_voice_over_the_bot_is_double_talk() -> None:
    detector = DoubleTalk()
    learn(detector, 0.0)
    assert detector.feed(0.05, BOT, raw_voiced=True, cleaned_voiced=False)
    assert not detector.feed(0.05, BOT, raw_voiced=False, cleaned_voiced=False)  # not a voice
    assert not detector.feed(0.001, BOT, raw_voiced=True, cleaned_voiced=False)  # too quiet


def test_with_a_laptops_echo_only_a_voice_well_over_the_echo_is() -> None:
    detector = DoubleTalk()
    learn(detector, 0.1)  # echo at half the bot's level
    assert not detector.feed(0.15, BOT, raw_voiced=True, cleaned_voiced=False)
    assert detector.feed(0.3, BOT, raw_voiced=True, cleaned_voiced=False)


def test_a_few_loud_frames_do_not_teach_it_that_the_echo_is_loud() -> None:
    detector = DoubleTalk()
    learn(detector, 0.0, frames=45)
    for _ in range(3):  # the unvoiced "s" of "sorry", let through as echo-like frames
        detector.feed(0.06, BOT, raw_voiced=False, cleaned_voiced=False)
    assert detector.feed(0.16, BOT, raw_voiced=True, cleaned_voiced=False)


def test_it_stands_aside_while_the_bot_is_silent() -> None:
    detector = DoubleTalk()
    learn(detector, 0.0)
    assert not detector.feed(0.3, 0.0, raw_voiced=True, cleaned_voiced=False)


def test_the_canceller_reports_the_raw_audio_and_the_bots_recent_peak() -> None:
    canceller = EchoCanceller()
    loud = (np.sin(np.arange(1600) / 5) * 0.3).astype(np.float32)
    canceller.feed_reference(loud, 16000)
    mic = np.full(480, 0.01, np.float32)
    captured = canceller.capture(mic, 16000)
    assert len(captured.cleaned) == len(captured.raw) == len(captured.bot_level) == 480
    assert np.allclose(captured.raw, mic, atol=1e-4)
    assert np.allclose(captured.bot_level, 0.3 / np.sqrt(2), atol=0.01)
    off = EchoCanceller(enabled=False).capture(mic, 16000)
    assert np.array_equal(off.cleaned, off.raw) and not off.bot_level.any()


def test_no_echo_while_the_bot_speaks_makes_the_path_echo_free() -> None:
    detector = DoubleTalk()
    learn(detector, 0.0, frames=15)
    assert not detector.echo_free  # not learnt yet: the canceller's output is heard
    learn(detector, 0.001, frames=35)  # a headset's noise floor, under any voice
    assert detector.echo_free


def test_an_echo_that_appears_ends_the_echo_free_path() -> None:
    detector = DoubleTalk()
    learn(detector, 0.0)
    assert detector.echo_free
    for _ in range(6):  # headphones off: the laptop's speaker is heard, and cancelled
        detector.feed(0.05, BOT, raw_voiced=False, cleaned_voiced=False)
    assert not detector.echo_free


def test_an_echo_louder_than_the_one_learnt_is_learnt_again() -> None:
    """Headphones off mid-call: the new echo sounds like a voice over the bot on every frame
    (so it teaches nothing), until the detector forgets and learns it afresh."""
    detector = DoubleTalk()
    learn(detector, 0.0)
    assert detector.echo_free
    echo = [detector.feed(0.1, BOT, raw_voiced=True, cleaned_voiced=False) for _ in range(50)]
    assert echo[0] and not all(echo)  # taken for a voice at first, then forgotten
    assert not detector.echo_free
    for _ in range(50):  # the canceller lets none of it through: learnt as echo
        detector.feed(0.1, BOT, raw_voiced=True, cleaned_voiced=False)
    assert detector.coupling is not None and detector.coupling >= 0.4
    assert not detector.feed(0.12, BOT, raw_voiced=True, cleaned_voiced=False)  # the echo
    assert detector.feed(0.3, BOT, raw_voiced=True, cleaned_voiced=False)  # a voice over it


def test_a_caller_who_talks_over_the_bot_now_and_then_is_not_taken_for_echo() -> None:
    detector = DoubleTalk()
    learn(detector, 0.0)
    for _ in range(3):  # a backchannel: ~13 frames heard before the bot's level falls
        assert all(
            detector.feed(0.1, BOT, raw_voiced=True, cleaned_voiced=False) for _ in range(13)
        )
        learn(detector, 0.0, frames=20)
    assert detector.echo_free


def test_a_laptops_echo_is_never_echo_free() -> None:
    detector = DoubleTalk()
    learn(detector, 0.01)
    assert not detector.echo_free


def test_a_faint_echo_the_vad_hears_as_a_voice_is_not_echo_free() -> None:
    detector = DoubleTalk()
    for _ in range(50):  # under the voice floor, but speech all the same
        detector.feed(0.0015, BOT, raw_voiced=True, cleaned_voiced=False)
    assert not detector.echo_free
