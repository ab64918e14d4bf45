"""Phone lines: the profiles (built in and from TOML, every problem said at once), bursty
packet loss, and one direction's path through the real codecs (FFmpeg's, through PyAV): a
landline passes its band only and arrives its delay later; a lossy line's codec conceals
what it lost, where G.711, which has no concealment, goes silent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from line_rig import longest_silence_ms, unconcealed_silence_ms

from sandbox.audio.line_path import LinePath
from sandbox.caller.script import ScriptProblems, parse_script
from sandbox.errors import UserError
from sandbox.judges.word_errors import word_error_rate
from sandbox.line.loss import PacketLoss
from sandbox.line.profile import MARGIN_MS, PROFILES, LineProfile, line_profile, load_profile

RATE = 16000
BLOCK = RATE // 50


def _through(path: LinePath, signal: npt.NDArray[np.int16]) -> npt.NDArray[np.int16]:
    """``signal`` fed to ``path`` a 20 ms block at a time, as the engine feeds it."""
    return np.concatenate(
        [path.process(signal[i : i + BLOCK]) for i in range(0, len(signal), BLOCK)]
    )


def _tone(seconds: float, hz: float = 440.0) -> npt.NDArray[np.int16]:
    t = np.arange(int(RATE * seconds)) / RATE
    return (np.sin(2 * np.pi * hz * t) * 8000).astype(np.int16)


def test_the_built_in_profiles_say_what_they_are() -> None:
    assert list(PROFILES) == ["wideband", "pstn", "mobile", "voip-lossy"]
    assert not PROFILES["wideband"].is_line
    assert PROFILES["pstn"].summary() == ("pstn: G.711 μ-law 8 kHz, 300 to 3400 Hz, 40 ms one way")
    assert "AMR-NB 8 kHz 7.4 kbps" in PROFILES["mobile"].summary()
    assert "5% loss (bursts of 3)" in PROFILES["voip-lossy"].summary()
    assert [p.narrowband for p in PROFILES.values()] == [False, True, True, False]
    with pytest.raises(UserError, match="no line profile 'dialup': use one of wideband, pstn"):
        line_profile("dialup")


def test_a_profile_file_is_read_and_each_of_its_problems_said(tmp_path: Path) -> None:
    good = tmp_path / "satellite.toml"
    good.write_text('codec = "opus"\nbitrate = 16000\nloss = 0.01\ndelay_ms = 300\n')
    profile = line_profile(str(good))
    assert profile == LineProfile(
        "satellite", f"the profile in {good}", codec="opus", bitrate=16000, loss=0.01,
        delay_ms=300,
    )  # fmt: skip
    bad = tmp_path / "bad.toml"
    bad.write_text('codec = "gsm"\nloss = 0.9\njitter_ms = 1.5\nband_hz = [3400, 300]\nx = 1\n')
    with pytest.raises(UserError) as raised:
        load_profile(bad)
    said = str(raised.value)
    for problem in ("unknown key 'x'", "codec must be one of pcm_mulaw, amr_nb, opus",
                    "loss must be from 0.0 to 0.5", "jitter_ms must be a whole number",
                    "band_hz is [low, high]"):  # fmt: skip
        assert problem in said, said
    (tmp_path / "broken.toml").write_text("codec = ")
    with pytest.raises(UserError, match="not valid TOML"):
        load_profile(tmp_path / "broken.toml")


def test_packets_are_lost_in_bursts_at_the_profiles_rate() -> None:
    loss = PacketLoss(0.05, 3.0, jitter_ms=0, buffer_ms=0, seed=7)
    fates = [loss.next_lost() for _ in range(200_000)]
    assert 0.045 < sum(fates) / len(fates) < 0.055
    bursts, run = [], 0
    for lost in fates:
        if lost:
            run += 1
        elif run:
            bursts.append(run)
            run = 0
    assert 2.7 < np.mean(bursts) < 3.3
    again = PacketLoss(0.05, 3.0, jitter_ms=0, buffer_ms=0, seed=7)
    assert [again.next_lost() for _ in range(1000)] == fates[:1000]  # seeded: the same


def test_packets_later_than_the_jitter_buffer_are_lost_too() -> None:
    loss = PacketLoss(0.0, 1.0, jitter_ms=40, buffer_ms=80, seed=3)
    for _ in range(100_000):
        loss.next_lost()
    assert loss.late == loss.lost
    assert 0.015 < loss.late / loss.sent < 0.03  # beyond two standard deviations: 2.3 %


def test_a_landline_passes_its_band_only_and_arrives_its_delay_later() -> None:
    noise = (np.random.default_rng(1).standard_normal(RATE * 2) * 3000).astype(np.int16)
    path = LinePath(PROFILES["pstn"], RATE, seed=1)
    out = _through(path, noise)
    assert len(out) == len(noise)
    spectrum = np.abs(np.fft.rfft(out.astype(np.float64))) ** 2
    hz = np.fft.rfftfreq(len(out), 1 / RATE)
    total = spectrum.sum()
    assert spectrum[hz > 4000].sum() / total < 1e-3
    assert spectrum[hz < 200].sum() / total < 1e-2
    assert path.delay_ms == 40 + MARGIN_MS
    assert PROFILES["pstn"].round_trip_ms == 2 * path.delay_ms  # the bench's, and the waterfall's
    assert PROFILES["wideband"].round_trip_ms == 0
    # The delay the caller meets: the lag at which the output best matches the input.
    lags = np.arange(0, RATE // 5)
    fit = [np.dot(noise[: RATE - lag].astype(float), out[lag:RATE].astype(float)) for lag in lags]
    lag_ms = int(np.argmax(fit)) * 1000 / RATE
    assert path.delay_ms <= lag_ms <= path.delay_ms + 15


@pytest.mark.parametrize("name", ["mobile", "voip-lossy"])
def test_a_lossy_line_conceals_what_it_lost_with_its_codec(name: str) -> None:
    path = LinePath(PROFILES[name], RATE, seed=4)
    out = _through(path, _tone(6.0))
    assert path.losses.lost >= 5  # losses happened, bursts among them
    start = RATE * (path.delay_ms + 40) // 1000
    assert longest_silence_ms(out[start:], RATE) == 0  # concealed: never a lost frame's silence


def test_g711_has_no_concealment_so_a_lost_frame_is_silence() -> None:
    lossy_landline = LineProfile("lossy", "G.711 losing packets", codec="pcm_mulaw", loss=0.1)
    path = LinePath(lossy_landline, RATE, seed=4)
    out = _through(path, _tone(6.0))
    assert path.losses.lost >= 10
    # A lost 20 ms frame, its edges softened by the resampler's filter.
    silent = longest_silence_ms(out[RATE * (path.delay_ms + 40) // 1000 :], RATE)
    assert silent >= unconcealed_silence_ms(1)


def test_a_script_names_its_line() -> None:
    script = parse_script('line = "pstn"\n[[step]]\nsay = "Hello."\n')
    assert script.line == "pstn"
    assert parse_script('line = "mine.toml"\n[[step]]\nsay = "Hello."\n').line == "mine.toml"
    with pytest.raises(ScriptProblems, match="line must be one of wideband, pstn"):
        parse_script('line = "tin-can"\n[[step]]\nsay = "Hello."\n')


def test_the_word_error_rate_counts_each_word_missed_changed_or_added() -> None:
    pairs = [
        ("What time do you open?", "What time do you open"),  # punctuation is no error
        ("Is it open on Sunday?", "Is it open Sunday?"),  # one missed
        ("My number is 42.", "My number is forty two"),  # a number as words: the same
        ("Hello there.", None),  # nothing reached the brain: every word missed
    ]
    assert word_error_rate(pairs) == round((0 + 1 + 0 + 2) / (5 + 5 + 4 + 2), 3)
    assert word_error_rate([]) is None
