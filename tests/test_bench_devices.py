"""Timing at the devices, from outside the app: the probe's sample clock, the fixed-reply
brain, the figures and their targets, and one real run of ``sandbox bench --devices``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.bench.device_report import device_lines, device_result, device_targets
from sandbox.bench.outside import DeviceFigures, DeviceRun, DeviceTurn
from sandbox.bench.probe import RATE, SETTLE_CALLBACKS, SampleClock
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
    )  # fmt: skip
    result = device_result(figures)
    assert result["device_end_of_speech_to_first_audio_ms"] == 1000
    assert result["device_end_of_speech_to_first_audio_fast_ms"] == 800
    assert result["peer_end_of_speech_to_first_audio_ms"] == 1100
    assert result["peer_ratio_end_of_speech_to_first_audio"] == 0.91
    assert result["peer_ratio_end_of_speech_to_first_audio_fast"] == 0.73
    bounds = device_targets(result)
    # End of speech -> UserMessage within each patience's confident window + 150 ms.
    assert bounds["device_end_of_speech_to_user_message_p7_ms"] == ("max", 720 + 150)
    assert bounds["device_end_of_speech_to_user_message_p0_ms"] == ("max", 150 + 150)
    assert result["device_end_of_speech_to_user_message_p0_ms"] == 350
    assert bounds["peer_ratio_end_of_speech_to_first_audio"] == ("max", 0.85)
    assert result["audit_units"] == 8 and bounds["audit_max_words_off"] == ("max", 1)
    lines = device_lines(result)
    assert any("Pipecat (speech-timeout)" in line and "1100 ms" in line for line in lines)
    assert "  audit of the app's 3 sessions: 8 units, 88% exact, words off at most 1" in lines
    assert json.loads(json.dumps(result)) == result


@pytest.mark.audio
@pytest.mark.slow  # the quick bench in CI runs the same stage
def test_bench_devices_times_the_app_from_outside_through_the_virtual_devices() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sandbox.cli", "bench", "--devices", "--patience", "7",
         "--turns", "2", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
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
