"""Timing at the devices, from outside the app: the probe's sample clock, the fixed-reply
brain, the figures and their targets, and one real run of ``sandbox bench --devices``."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from bench_figures import device_run

from sandbox.audio.endpointer import windows_for
from sandbox.brains.fixed import REPLY, FixedReply
from sandbox.harness import VoqalizeDriver
from sandbox.paths import HOME_ENV
from sandbox_bench.caller_set import load_caller_set
from sandbox_bench.device_report import device_lines, device_result, device_targets
from sandbox_bench.outside import ClosedTurn, DeviceFigures, DeviceRun, DeviceTurn, turn_closes
from sandbox_bench.outside_floor import (
    FloorRun,
    FloorTrial,
    silence_around,
    silence_from,
    sound_ms,
)
from sandbox_bench.probe import LEVEL, RATE, SETTLE_CALLBACKS, SampleClock


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


Q, S = "wh_question", "statement"


def test_device_ratios_are_to_the_faster_pipecat_configuration_overall_and_by_class() -> None:
    figures = DeviceFigures(
        25.0,
        (
            device_run("app (patience 7)", 7, [900, 1000, 1100, 400, 500, 600], 850,
                 [Q, Q, Q, S, S, S],
                 ["confident", "confident", "silence", "final", "final", "confident"]),
            device_run("app (patience 6)", 6, [800, 700, 900], 700, peak=612.5),
            device_run("app (patience 0)", 0, [400, 500, 600], 350, peak=580.0),
        ),
        (
            # Speech timeout: faster overall (median 1100 against 1250) and on statements.
            device_run("Pipecat (speech-timeout)", None, [1200, 1300, 1400, 800, 900, 1000], 900,
                 [Q, Q, Q, S, S, S], strategy="speech-timeout", peak=450.0),
            # Smart Turn: faster on questions, with the slowest turn of all; a question and
            # a request unanswered.
            device_run("Pipecat (smart-turn)", None, [1000, 1100, 3400, 1200, 1300, 1400], 900,
                 [Q, Q, Q, S, S, S], strategy="smart-turn", missed=(Q, "request")),
        ),
        {"audit_sessions": 3, "audit_units": 8, "audit_exact_fraction": 0.875,
         "audit_max_words_off": 1},
        peer_s=181.5,
        classes={Q: "wh-questions", "request": "requests", S: "statements"},
    )  # fmt: skip
    result = device_result(figures)
    assert result["peer_stage_s"] == 181.5  # the full run's budget leaves it out
    # Each process's peak, read as it exited: the app's highest session, and the peer's.
    assert result["device_app_peak_rss_mb"] == 612.5 and result["peer_peak_rss_mb"] == 450.0
    assert result["device_runs"][0]["peak_rss_mb"] is None  # not read: not guessed
    assert result["device_end_of_speech_to_first_audio_ms"] == 750
    assert result["device_end_of_speech_to_first_audio_fast_ms"] == 800
    assert [r["strategy"] for r in result["peer_runs"]] == ["speech-timeout", "smart-turn"]
    assert result["peer_faster"] == "speech-timeout"
    assert result["peer_end_of_speech_to_first_audio_ms"] == 1100
    assert result["peer_ratio_end_of_speech_to_first_audio"] == 0.68
    assert result["peer_ratio_end_of_speech_to_first_audio_fast"] == 0.73
    # The slowest turns: ours 1100; the faster configuration's 1400 (not Smart Turn's 3400).
    assert result["device_worst_turn_ms"] == 1100 and result["peer_worst_turn_ms"] == 1400
    assert result["worst_turn_ratio"] == 0.79
    # Each class against the configuration faster on it: questions Smart Turn's 1100,
    # statements the speech timeout's 900; a class nobody was asked has no ratio.
    assert result["peer_class_faster_ms"] == {
        Q: {"median_ms": 1100, "strategy": "smart-turn"},
        S: {"median_ms": 900, "strategy": "speech-timeout"},
    }
    assert result["peer_class_ratio_wh_question"] == 0.91
    assert result["peer_class_ratio_statement"] == 0.56
    assert "peer_class_ratio_request" not in result
    # Median, p90 (nearest rank) and worst of each class, in the set's order.
    assert result["device_class_first_audio_ms"] == {
        Q: {"turns": 3, "missed": 0, "median_ms": 1000, "p90_ms": 1100, "worst_ms": 1100},
        S: {"turns": 3, "missed": 0, "median_ms": 500, "p90_ms": 600, "worst_ms": 600},
    }
    assert result["device_classes"]["request"] == "requests"
    assert result["device_close_reasons"] == {"final": 2, "confident": 3, "silence": 1}
    (app7, *_others) = result["device_runs"]
    assert app7["turn_log"][2] == {
        "class": Q, "text": "line 2", "voice": "espeak en-us+m3 150", "first_audio_ms": 1100,
        "brain_ms": 850, "closed_by": "silence", "heard": None, "mend": None,
    }  # fmt: skip
    assert result["peer_runs"][0]["close_reasons"] is None  # the peer tells none
    # Turns whose close the app's report did not give are counted as such, not dropped.
    assert result["device_runs"][1]["close_reasons"] == {
        "final": 0, "confident": 0, "silence": 0, "unknown": 3
    }  # fmt: skip
    smart = result["peer_runs"][1]["classes"]
    assert (smart[Q]["median_ms"], smart[Q]["p90_ms"], smart[Q]["worst_ms"]) == (1100, 3400, 3400)
    # Turns with no reply count by class: a class with no answer has no median, no ratio.
    assert smart[Q]["missed"] == 1 and result["peer_runs"][1]["missed"] == 2
    assert smart["request"] == {
        "turns": 0, "missed": 1, "median_ms": None, "p90_ms": None, "worst_ms": None
    }  # fmt: skip
    bounds = device_targets(result)
    # End of speech -> UserMessage within each patience's confident window + 150 ms.
    p7 = windows_for(7).confident_ms + 150
    assert bounds["device_end_of_speech_to_user_message_p7_ms"] == ("max", p7)
    assert bounds["device_end_of_speech_to_user_message_p0_ms"] == ("max", 150 + 150)
    assert result["device_end_of_speech_to_user_message_p0_ms"] == 350
    # The targets: 0.65 overall, 0.80 each class, 0.9 the slowest turn.
    assert bounds["peer_ratio_end_of_speech_to_first_audio"] == ("max", 0.65)
    assert bounds["peer_class_ratio_wh_question"] == ("max", 0.80)
    assert bounds["peer_class_ratio_statement"] == ("max", 0.80)
    assert bounds["worst_turn_ratio"] == ("max", 0.9)
    assert bounds["device_app_peak_rss_mb"] == ("max", 600)
    assert result["audit_units"] == 8 and bounds["audit_max_words_off"] == ("max", 1)
    lines = device_lines(result)
    assert any("Pipecat (smart-turn)" in line and "1250 ms" in line for line in lines)
    assert any("app (patience 7)" in line and "closed 2 final, 3 confident, 1 silence" in line
               for line in lines)  # fmt: skip
    assert any("app (patience 6)" in line and line.endswith("; peak 612 MB") for line in lines)
    assert "  the faster Pipecat configuration: speech-timeout" in lines
    # The table by class: ours, each configuration's, and the ratio to the faster.
    row = next(line for line in lines if line.strip().startswith(Q))
    assert row.split() == [Q, "3", "1000", "/", "1100", "/", "1100", "1300", "/", "1400", "/",
                           "1400", "1100", "/", "3400", "/", "3400", "(1", "unanswered)",
                           "0.91"]  # fmt: skip
    assert any("Pipecat (smart-turn)" in line and "6 turns, 2 unanswered" in line
               for line in lines)  # fmt: skip
    overall = next(line for line in lines if line.strip().startswith("all "))
    assert overall.split()[-1] == "0.68"
    assert "  audit of the app's 3 sessions: 8 units, 88% exact, words off at most 1" in lines
    assert json.loads(json.dumps(result)) == result


def test_without_the_peer_the_classes_and_close_reasons_stand_alone() -> None:
    # The first turn's first audio came before it reached the brain: a reply to something else.
    app = device_run("app (patience 7)", 7, [300, 500], 400, ["name", "name"], ["final", "final"])
    result = device_result(DeviceFigures(20.0, (app,), (), {}, classes={"name": "names"}))
    assert "peer_runs" not in result and "peer_ratio_end_of_speech_to_first_audio" not in result
    assert not any(key.startswith("peer_class_ratio_") for key in result)
    assert result["device_close_reasons"] == {"final": 2, "confident": 0, "silence": 0}
    assert result["device_runs"][0]["first_audio_before_brain"] == 1
    lines = device_lines(result)
    assert "1 heard before the turn reached the brain" in lines[1]
    assert not any("ratio" in line for line in lines)
    assert any(line.split()[:2] == ["name", "2"] for line in lines)


def _turn(kind: str, said: str, heard: str | None, how: str | None = None) -> DeviceTurn:
    return DeviceTurn(500.0, 300.0, kind, said, "espeak en-us+m3 150", how, heard)


def test_the_callers_words_are_scored_by_class_against_what_reached_each_brain() -> None:
    """Word error rate against the words said, turns that reached the brain doubled or
    looped, the app's mends from its report, and how each class closed."""
    question = "How much does a private lesson cost?"
    ours = DeviceRun(
        "app (patience 7)", 7,
        (
            _turn(Q, question, question, "final"),
            replace(
                _turn(Q, "Which floor is the dentist on?", "Which floor is the dentist on",
                      "confident"),
                mend="doubled",
            ),
            _turn(S, "I lost my library card.", "I lost my library cart.", "final"),
            _turn(S, "No. No.", "No. No.", "silence"),  # said twice: as said
        ),
        (),
    )  # fmt: skip
    theirs = DeviceRun(
        "Pipecat (speech-timeout)", None,
        (
            _turn(Q, question, f"{question} {question}"),  # 7 words more
            _turn(Q, "Which floor is the dentist on?", "Which floor is the dentist on?"),
            _turn(S, "I lost my library card.", None),  # its LLM never got it: not scored
            _turn(S, "No. No.", "No."),
        ),
        (), "speech-timeout",
    )  # fmt: skip
    classes = {Q: "wh-questions", S: "statements"}
    result = device_result(DeviceFigures(20.0, (ours,), (theirs,), {}, classes=classes))
    assert result["device_word_error_rate"] == round(1 / 20, 3)  # "cart"
    assert result["device_class_word_error_rate"] == {Q: 0.0, S: round(1 / 7, 3)}
    assert result["device_doubled_turns"] == 0
    assert result["device_mended_turns"] == {"doubled": 1}
    assert result["device_class_close_reasons"] == {
        Q: {"final": 1, "confident": 1, "silence": 0},
        S: {"final": 1, "confident": 0, "silence": 1},
    }
    assert result["device_runs"][0]["turn_log"][1]["mend"] == "doubled"
    assert result["peer_word_error_rate"] == round((7 + 1) / 15, 3)
    assert result["peer_class_word_error_rate"] == {Q: round(7 / 13, 3), S: 0.5}
    assert result["peer_doubled_turns"] == 1
    assert result["peer_runs"][0]["class_close_reasons"] is None  # the peer tells none
    bounds = device_targets(result)
    assert bounds["device_word_error_rate"] == ("max", result["peer_word_error_rate"])
    assert bounds["device_doubled_turns"] == ("max", 0)
    lines = device_lines(result)
    assert any(
        "word error rate 0.05" in line and "the faster Pipecat's 0.533" in line
        and "doubled or looped 0" in line and "mended 1 doubled" in line
        for line in lines
    ), lines  # fmt: skip
    assert f"  closed, {Q}: 1 final, 1 confident, 0 silence" in lines


def test_the_sessions_first_reply_is_reported_against_its_median_reply() -> None:
    """The first turn's reply, from the turn at the brain to its first audio, against the
    session's median reply: a first turn of a class that waits longer is not cold."""
    app = device_run("app (patience 7)", 7, [400, 500, 900], 300)  # replies 100, 200, 600
    spelled = _turn("spelled", "It's B 7 Q 4 9.", "It's B 7 Q 4 9.", "silence")
    cold = replace(spelled, to_first_audio_ms=2000.0, to_brain_ms=1650.0)  # a 350 ms reply
    result = device_result(DeviceFigures(20.0, (replace(app, first_turn=cold),), (), {}))
    assert result["device_first_turn_ms"] == 2000.0
    assert result["device_first_turn_over_median_ms"] == 150.0  # 350 against 200
    assert result["device_runs"][0]["first_turn_ms"] == 2000.0
    assert device_targets(result)["device_first_turn_over_median_ms"] == ("max", 150)
    unheard = replace(cold, to_brain_ms=None)  # its turn never seen at the brain: no reply
    for first in (None, unheard):
        quiet = device_result(DeviceFigures(20.0, (replace(app, first_turn=first),), (), {}))
        assert quiet["device_first_turn_over_median_ms"] is None


def _report(
    caller_turns: list[str], closes: dict[str, str], mends: dict[str, str]
) -> dict[str, object]:
    """A call's report as ``sandbox run --report`` writes it, with only what it must hold."""
    return {
        "report_version": 1, "session_id": "s", "brain_url": "ws://x", "started_at": "now",
        "outcome": "completed", "ended_by": "caller", "end_detail": "", "settings": "",
        "watermark": 0, "caller_turns": caller_turns, "turn_closes": closes,
        "turn_mends": mends, "units": [], "steps": [], "errors": [], "alignment_skips": 0,
        "frames": [],
    }  # fmt: skip


def test_each_caller_turn_gets_its_close_from_the_calls_report_in_order(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    # The greeting is turn 1, so the caller's turns are 2..12: "10" sorts after "9".
    texts = [f"turn {n}" for n in range(2, 13)]
    closes = {str(n): "silence" if n == 10 else "confident" for n in range(2, 13)}
    report.write_text(json.dumps(_report(texts, closes, {"10": "doubled"})), encoding="utf-8")
    found = turn_closes(report)
    assert found[1] == ClosedTurn("turn 2", "confident")
    assert found[9] == ClosedTurn("turn 10", "silence", "doubled")
    assert len(found) == 11
    assert turn_closes(tmp_path / "none.json") == {}  # the app wrote none: no closes, no error
    report.write_text("{", encoding="utf-8")
    assert turn_closes(report) == {}


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
    # Two turns of the set, of two classes, each with how the app's endpointer closed it
    # (from the call's report) and what reached the brain.
    classes = load_caller_set().texts
    assert [t["class"] for t in run["turn_log"]] == list(result["device_class_first_audio_ms"])
    for turn in run["turn_log"]:
        assert turn["text"] in classes[turn["class"]]
        assert turn["closed_by"] in ("final", "confident", "silence")
        assert turn["heard"]
    reasons = result["device_close_reasons"]
    assert sum(reasons.values()) == 2 and "unknown" not in reasons
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
        DeviceFigures(25.0, (device_run("app (patience 7)", 7, [900], 850),), (), {}, floor)
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
