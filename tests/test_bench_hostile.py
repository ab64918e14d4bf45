"""``sandbox bench --hostile``: the command end to end (reduced), and its table on made-up
figures. Timings and memory are the bench's to report, not this test's to judge: it checks
that every figure is there and that each misbehaving brain's call was measured."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.brains.hostile import BEHAVIOURS
from sandbox_bench.hostile import QUICK_EXAMPLES, hostile_table
from sandbox_bench.mode_keys import HOSTILE_MODE

ROOT = Path(__file__).resolve().parents[1]
#: Every figure the issue asks for, with the type its value must have.
REQUIRED: dict[str, type | tuple[type, ...]] = {
    "tts_dead_threads": int,
    "tts_examples": int,
    "printer_escapes": int,
    "printer_examples": int,
    "peak_rss_mb": (int, float),
    "report_mb": (int, float),
    "hang_up_exit_s": (int, float),
    "brains": dict,
    "targets": dict,
}


@pytest.mark.audio
def test_quick_hostile_json_measures_each_misbehaving_brain() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sandbox.cli", "bench", "--hostile", "--quick", "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    figures = json.loads(done.stdout)  # exactly one JSON object: progress is on stderr
    for key, kind in REQUIRED.items():
        assert isinstance(figures.get(key), kind), (key, figures.get(key))
    for stage in (1, 2, 3):
        assert f"[{stage}/3]" in done.stderr
    assert figures["tts_examples"] == figures["printer_examples"] == QUICK_EXAMPLES
    assert set(figures["targets"]) == set(HOSTILE_MODE.bounds())
    # One call a brain, each in a process of its own: its own high-water mark, not the
    # bench's (which holds Piper) nor the one before it.
    assert set(figures["brains"]) == set(BEHAVIOURS)
    for name, call in figures["brains"].items():
        # Each call is hung up on (SIGTERM: exit 143) but the one whose brain closes the
        # socket first; a brain that never sends a frame to a caller who spoke leaves the
        # call not_reached.
        ended_first = name == "closes_mid_unit"
        assert call["exit_code"] == (0 if ended_first else 143), (name, call)
        assert not call["timed_out"], (name, call)
        assert (call["hang_up_exit_s"] is None) is ended_first, (name, call)
        assert (call["outcome"] == "not_reached") is (name == "silent"), (name, call)
        assert 20 < call["peak_rss_mb"] < 2_000, (name, call)
        assert call["report_kb"] > 0 and call["outcome"], (name, call)
        assert f"  {name}: peak " in done.stderr
    # An endless stream over a caller who barged in: counted, not kept.
    assert figures["brains"]["endless"]["unkept"]["dead_unit"] > 0
    peaks = [call["peak_rss_mb"] for call in figures["brains"].values()]
    assert figures["peak_rss_mb"] == max(peaks)
    assert len(set(peaks)) > 1  # measured per call, not inherited


def test_the_table_puts_each_target_and_each_brain_on_a_line() -> None:
    call = {
        "peak_rss_mb": 74.1,
        "seconds": 13.9,
        "exit_code": 0,
        "timed_out": False,
        "hang_up_exit_s": 0.8,
        "report_kb": 124.0,
        "store_kb": 256.0,
        "outcome": "completed",
        "unkept": {"dead_unit": 140_000},
    }
    figures = {
        "tts_examples": 2000,
        "tts_dead_threads": 0,
        "printer_examples": 2000,
        "printer_escapes": 0,
        "peak_rss_mb": 220.5,
        "report_mb": 0.12,
        "hang_up_exit_s": 2.5,
        "call_s": 60.0,
        "seconds": 240.0,
        "brains": {
            "garbage": call,
            "huge": {**call, "peak_rss_mb": 220.5, "timed_out": True, "unkept": {}},
            "closes_mid_unit": {**call, "hang_up_exit_s": None},
        },
    }
    lines = hostile_table(figures).splitlines()
    assert lines[0] == (
        "hostile input: 2,000 texts spoken, 2,000 printed, each brain met for 60 s (240 s)"
    )
    assert any("peak_rss_mb" in line and "✓" in line for line in lines)
    assert any("report_mb" in line and "✓" in line for line in lines)
    assert any("hang_up_exit_s" in line and "✗" in line for line in lines)
    garbage = next(line for line in lines if line.startswith("  garbage "))
    assert "74 MB" in garbage and "exit 0.80 s" in garbage and "dead_unit 140,000" in garbage
    assert any(line.startswith("  huge ") and "timed out" in line for line in lines)
    assert any("closes_mid_unit" in line and "it ended before" in line for line in lines)
