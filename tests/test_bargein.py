"""The barge-in detector: scripted VAD frames on a fake clock, then real espeak speech."""

from __future__ import annotations

import pytest
from caller_audio import espeak, join, silence

from sandbox.audio.bargein import BargeIn, BargeInDetector
from sandbox.audio.resample import Float32, as_int16
from sandbox.audio.vad import FrameVad

F = 30


def play(
    detector: BargeInDetector, pattern: str, *, t0: int = 0, bot: bool = True
) -> list[BargeIn]:
    """Feed '#' voiced / '.' silent frames from ``t0``; return the barge-ins."""
    hits = []
    for i, ch in enumerate(pattern):
        hit = detector.feed(ch == "#", t0 + i * F, bot)
        if hit is not None:
            hits.append(hit)
    return hits


def test_sustained_speech_barges_in_once_at_the_threshold() -> None:
    detector = BargeInDetector()
    frames = detector.min_voiced_ms // F
    hits = play(detector, "...." + "#" * 60)
    assert hits == [BargeIn(t_onset=4 * F, t_decided=(4 + frames) * F)]


@pytest.mark.parametrize(
    "backchannel",
    [
        "#" * 9,  # "yeah"
        "#" * 14,  # "okay"
        "#" * 8 + "...." + "#" * 9,  # "mm-hmm": two syllables, one burst
        "#" * 19,  # a long "mmmm", just under the threshold
    ],
)
def test_a_backchannel_does_not(backchannel: str) -> None:
    assert play(BargeInDetector(), "...." + backchannel + "." * 40) == []


def test_backchannels_a_breath_apart_do_not_add_up() -> None:
    detector = BargeInDetector()
    gap = "." * (detector.gap_ms // F)
    assert play(detector, ("#" * 15 + gap) * 6) == []


def test_speech_thinned_by_double_talk_still_barges_in() -> None:
    """The echo canceller drops ~1 frame in 3 of the caller's voice while the bot talks."""
    hits = play(BargeInDetector(), "##." * 20)
    assert len(hits) == 1
    assert hits[0].t_onset == 0 and hits[0].t_decided <= 1000


def test_intermittent_noise_never_adds_up() -> None:
    assert play(BargeInDetector(), "#..." * 300) == []
    assert play(BargeInDetector(), "##....." * 150) == []


def test_nothing_while_the_bot_is_silent() -> None:
    assert play(BargeInDetector(), "#" * 100, bot=False) == []


def test_the_bot_stopping_ends_the_burst() -> None:
    detector = BargeInDetector()
    play(detector, "#" * 15)
    play(detector, "#", t0=15 * F, bot=False)
    hits = play(detector, "#" * 30, t0=16 * F)
    assert hits[0].t_onset == 16 * F  # counted afresh once the bot spoke again


def test_a_new_burst_after_a_gap_can_barge_in_again() -> None:
    detector = BargeInDetector()
    gap = "." * (detector.gap_ms // F)
    hits = play(detector, "#" * 30 + gap + "#" * 30)
    assert [h.t_onset for h in hits] == [0, (30 + len(gap)) * F]


def test_threshold_is_tunable() -> None:
    hits = play(BargeInDetector(min_voiced_ms=300), "#" * 20)
    assert hits == [BargeIn(0, 300)]
    with pytest.raises(ValueError):
        BargeInDetector(min_voiced_ms=2000, window_ms=1200)


def _decisions(pcm: Float32) -> list[BargeIn]:
    vad, detector = FrameVad(), BargeInDetector()
    audio = as_int16(pcm)
    hits = []
    for i in range(len(audio) // 480):
        hit = detector.feed(vad.is_speech(audio[i * 480 : (i + 1) * 480]), i * F, True)
        if hit is not None:
            hits.append(hit)
    return hits


@pytest.mark.parametrize(
    ("word", "wpm"),
    # Natural backchannel pace: Switchboard's "mm-hmm" averages ~0.45 s, "yeah" ~0.25 s.
    [("mm hmm", 240), ("uh-huh", 200), ("okay", 200), ("yeah", 200), ("right", 200)],
)
def test_spoken_backchannels_do_not_barge_in(word: str, wpm: int) -> None:
    assert _decisions(join(silence(300), espeak(word, wpm=wpm), silence(600))) == []


def test_a_spoken_objection_barges_in_within_a_second() -> None:
    hits = _decisions(join(silence(300), espeak("No wait, I want the other one."), silence(300)))
    assert len(hits) == 1
    assert 270 <= hits[0].t_onset <= 400
    assert hits[0].t_decided - hits[0].t_onset < 1000
