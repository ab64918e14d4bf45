"""Timing at the devices, from outside the app: the probe's sample clock, the fixed-reply
brain, the figures and their targets, and one real run of ``sandbox bench --devices``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from sandbox.audio.endpointer import windows_for
from sandbox.bench.device_report import device_lines, device_result, device_targets
from sandbox.bench.outside import DeviceFigures, DeviceRun, DeviceTurn
from sandbox.bench.outside_floor import (
    FloorRun,
    FloorTrial,
    silence_around,
    silence_from,
    sound_ms,
)
from sandbox.bench.probe import LEVEL, RATE, SETTLE_CALLBACKS, SampleClock
from sandbox.brains.fixed import REPLY, FixedReply
from sandbox.harness import VoqalizeDriver
from sandbox.paths import HOME_ENV


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))


def test_a_sample_clock_takes_its_offset_from_the_least_delayed_callback() -> None:
    clock = SampleClock()
    block = RATE // 100
    # Callbacks every 10 ms of samples, late by a jittering 5..45 ms; the first ones burst.
    lates = [0.5] * SETTLE_CALLBACKS + [0.005 * (1 + (7 * k) % 9) for k in range(50)]
    for k, late in enumerate(lates):
        clock.stamp(k * block, 100.0 + k * block / RATE + late)
    assert clock.offset == pytest.approx(100.005)
    assert clock.at(RATE) == pytest.approx(101.005)  # one second of samples later


async def test_the_fixed_brain_answers_every_turn_with_the_peers_reply_word_by_word() -> None:
    told: list[tuple[str, str]] = []
    async with VoqalizeDriver(FixedReply(lambda kind, text: told.append((kind, text)))) as driver:
        await driver.say("hello")
        await driver.say("and again")
        await driver.settle()
        assert driver.heard == [REPLY, REPLY]  # no greeting, like the peer
    assert told == [("session_start", ""), ("user_message", "hello"), ("user_message", "and again")]
    chunks = [f for f in driver.frames if f.dir == "in" and f.type == "speech_chunk"]
    assert len(chunks) == 2 * len(REPLY.split())  # streamed as tokens, all at once


def _run(who: str, patience: int | None, values: list[float], brain: float) -> DeviceRun:
    return DeviceRun(who, patience, tuple(DeviceTurn(v, brain) for v in values), 0)


def test_device_figures_are_the_medians_their_ratio_to_the_peer_and_the_windows() -> None:
    figures = DeviceFigures(
        25.0,
        (
            _run("app (patience 7)", 7, [900, 1000, 1100], 850),
            _run("app (patience 6)", 6, [800, 700, 900], 700),
            _run("app (patience 0)", 0, [400, 500, 600], 350),
        ),
        _run("Pipecat (speech-timeout)", None, [1200, 1000, 1100], 900),
        {"audit_sessions": 3, "audit_units": 8, "audit_exact_fraction": 0.875,
         "audit_max_words_off": 1},
        peer_s=181.5,
    )  # fmt: skip
    result = device_result(figures)
    assert result["peer_stage_s"] == 181.5  # the full run's budget leaves it out
    assert result["device_end_of_speech_to_first_audio_ms"] == 1000
    assert result["device_end_of_speech_to_first_audio_fast_ms"] == 800
    assert result["peer_end_of_speech_to_first_audio_ms"] == 1100
    assert result["peer_ratio_end_of_speech_to_first_audio"] == 0.91
    assert result["peer_ratio_end_of_speech_to_first_audio_fast"] == 0.73
    # The slowest turns: ours 1100 at patience 7, the peer's 1200.
    assert result["device_worst_turn_ms"] == 1100 and result["peer_worst_turn_ms"] == 1200
    assert result["worst_turn_ratio"] == 0.92
    bounds = device_targets(result)
    # End of speech -> UserMessage within each patience's confident window + 150 ms.
    p7 = windows_for(7).confident_ms + 150
    assert bounds["device_end_of_speech_to_user_message_p7_ms"] == ("max", p7)
    assert bounds["device_end_of_speech_to_user_message_p0_ms"] == ("max", 150 + 150)
    assert result["device_end_of_speech_to_user_message_p0_ms"] == 350
    assert bounds["peer_ratio_end_of_speech_to_first_audio"] == ("max", 0.70)
    assert bounds["worst_turn_ratio"] == ("max", 1.0)
    assert result["audit_units"] == 8 and bounds["audit_max_words_off"] == ("max", 1)
    lines = device_lines(result)
    assert any("Pipecat (speech-timeout)" in line and "1100 ms" in line for line in lines)
    assert "  audit of the app's 3 sessions: 8 units, 88% exact, words off at most 1" in lines
    assert json.loads(json.dumps(result)) == result


@pytest.mark.audio
@pytest.mark.slow  # the quick bench in CI runs the same stage
def test_bench_devices_times_the_app_from_outside_through_the_virtual_devices() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sandbox.cli", "bench", "--devices", "--quick", "--patience", "7",
         "--turns", "2", "--json"],
        capture_output=True,
        text=True,
        timeout=400,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    (run,) = result["device_runs"]
    assert run["turns"] == 2 and run["missed"] == 0
    # The reply comes after the caller stopped, and before the bench gave up on it.
    assert all(0 < v < 15_000 for v in run["values_ms"])
    # The turn reached the brain before its reply was heard.
    assert 0 < run["end_of_speech_to_brain_ms"] < run["end_of_speech_to_first_audio_ms"]
    # Each turn's own split: at the brain, then heard.
    assert all(0 < b < v for b, v in zip(run["brain_values_ms"], run["values_ms"], strict=True))
    assert 0 < result["device_probe_loop_ms"] < 500
    assert "device_end_of_speech_to_user_message_p7_ms" in result["targets"]
    # The app's one call, audited against its speaker leg: its greeting and two replies.
    assert result["audit_sessions"] == 1 and result["audit_units"] >= 2
    assert result["audit_max_words_off"] <= 1
    assert "the probe's own loop" in done.stderr
    # Then over the bot at the speaker (--quick: an objection, then a backchannel over its
    # reply): the backchannel was heard as such, the objection took the floor.
    trials = result["device_floor_trials"]
    assert [t["barge_in"] for t in trials] == [True, False]
    assert result["device_backchannel_answered_fraction"] == 0
    assert result["device_barge_in_landed_fraction"] == 1
    assert 0 < result["barge_in_onset_to_silence_ms"] < 1000
    assert "backchannel_gap_ms" in result["targets"]


def _speaker(*parts: tuple[str, int]) -> npt.NDArray[np.int16]:
    """Synthetic speaker audio: ("bot", ms) of a 200 Hz tone at speech level, ("quiet", ms)
    of silence, ("faint", ms) of the tone just under the probe's level."""
    out = []
    for kind, ms in parts:
        t = np.arange(ms * RATE // 1000) / RATE
        level = {"bot": 8000, "quiet": 0, "faint": LEVEL - 1}[kind]
        out.append((level * np.sin(2 * np.pi * 200 * t)).astype(np.int16))
    return np.concatenate(out)


def _at(ms: int) -> int:
    return ms * RATE // 1000


def test_the_gap_around_a_backchannel_is_the_longest_silence_overlapping_its_voice() -> None:
    # The bot speaks, pauses 400 ms for a backchannel voiced over 1000..1450 ms, goes on;
    # a word gap of 80 ms before and one of 120 ms during the voice do not count.
    audio = _speaker(
        ("bot", 800), ("quiet", 80), ("bot", 200), ("quiet", 400), ("bot", 300),
        ("quiet", 120), ("bot", 500),
    )  # fmt: skip
    assert silence_around(audio, _at(1000), _at(1450)) == pytest.approx(400)
    # A fade under the probe's level is silence; a word played lower but above it is sound.
    faded = _speaker(("bot", 500), ("faint", 100), ("quiet", 300), ("bot", 500))
    assert silence_around(faded, _at(450), _at(700)) == pytest.approx(400)
    ducked = _speaker(("bot", 500), ("quiet", 50), ("bot", 600))
    assert silence_around(ducked // 8, _at(450), _at(900)) == pytest.approx(50)
    # No silence at all over the voice: none.
    assert silence_around(_speaker(("bot", 1000)), _at(200), _at(600)) == 0


def test_a_barge_in_silences_the_bot_where_the_speaker_stays_quiet_and_sound_after_counts() -> None:
    # Objection at 1000 ms; a 100 ms word gap at 1050, the bot stopped at 1180, went on for
    # 150 ms at 1600 (a comma), then quiet for good.
    audio = _speaker(
        ("bot", 1050), ("quiet", 100), ("bot", 30), ("quiet", 420), ("bot", 150),
        ("quiet", 1000),
    )  # fmt: skip
    start = silence_from(audio, _at(1000))
    assert start == _at(1180)
    assert sound_ms(audio, start, _at(2500)) == pytest.approx(150)
    assert silence_from(_speaker(("bot", 2000)), _at(500)) is None
    # Quiet already at the onset: silent from the onset.
    assert silence_from(_speaker(("bot", 500), ("quiet", 1000)), _at(700)) == _at(700)


def _floor_trial(barge_in: bool, answered: bool, value: float) -> FloorTrial:
    if barge_in:
        return FloorTrial("Wait.", "en-us", True, answered, None, value, 0.0)
    return FloorTrial("Okay.", "en-us", False, answered, value, None, None)


def test_floor_figures_are_medians_with_their_targets_and_lines() -> None:
    floor = FloorRun(
        (
            _floor_trial(False, False, 300),
            _floor_trial(False, False, 500),
            _floor_trial(False, True, 900),
            _floor_trial(True, True, 180),
            _floor_trial(True, True, 200),
        ),
        0,
    )
    result = device_result(
        DeviceFigures(25.0, (_run("app (patience 7)", 7, [900], 850),), None, {}, floor)
    )
    assert result["backchannel_gap_ms"] == 500
    assert result["device_backchannel_answered_fraction"] == 0.333
    assert result["barge_in_onset_to_silence_ms"] == 190
    assert result["device_barge_in_landed_fraction"] == 1.0
    bounds = device_targets(result)
    assert bounds["backchannel_gap_ms"] == ("max", 500)
    assert bounds["barge_in_onset_to_silence_ms"] == ("max", 200)
    assert any("silence around a backchannel 500 ms" in line for line in device_lines(result))
    assert json.loads(json.dumps(result)) == result
