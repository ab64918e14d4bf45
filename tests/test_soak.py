"""The soak: ``sandbox bench --soak 1 --json``, the 60-second version CI runs (the long ones
are runs of the same command, their figures in the README), and its slope, unit-tested."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.paths import HOME_ENV
from sandbox_bench.soak import (
    floor_points,
    held_memory_mb,
    memory_mb,
    slope_per_10min,
    trend_per_10min,
    warm_up_s,
)


def test_the_slope_is_least_squares_per_ten_minutes() -> None:
    assert slope_per_10min([(0, 100.0), (60, 100.1), (120, 100.2)]) == pytest.approx(1.0)
    assert slope_per_10min([(0, 5.0), (30, 5.0)]) == 0.0
    assert slope_per_10min([(0, 5.0)]) == 0.0  # too few to say


def test_the_trend_is_the_median_of_pair_slopes_which_a_few_high_samples_do_not_move() -> None:
    line = [(t * 6.0, 330.0 + t * 6.0 / 600) for t in range(60)]  # 1 MB per 10 minutes
    assert trend_per_10min(line) == pytest.approx(1.0)
    # A tenth of the samples land on a transcription, 40 MB high, late in the call.
    busy = [(t, v + 40.0) if i % 10 == 9 and i > 30 else (t, v) for i, (t, v) in enumerate(line)]
    assert trend_per_10min(busy) == pytest.approx(1.0, abs=0.2)
    assert slope_per_10min(busy) > 5  # where least squares follows them
    assert trend_per_10min([(0, 5.0)]) == trend_per_10min([(3, 1.0), (3, 2.0)]) == 0.0


def test_the_floor_is_the_lowest_of_each_run_and_a_short_last_run_is_left_out() -> None:
    swinging = [(float(t), 300.0 + (200.0 if t % 2 else 0.0) + t / 100) for t in range(25)]
    assert floor_points(swinging) == [(0, 300.0), (10, 300.1)]


def test_the_warm_up_is_a_fifth_of_the_call_and_at_most_two_minutes() -> None:
    assert warm_up_s(1) == 12
    assert warm_up_s(30) == 120


def test_resident_memory_is_read_with_its_parts_and_freed_memory_is_given_back() -> None:
    parts = memory_mb()
    assert parts["RssAnon"] + parts["RssFile"] + parts["RssShmem"] == pytest.approx(
        parts["VmRSS"], abs=0.1
    )
    # 80 MB in 8 KiB blocks between blocks that stay: glibc keeps the holes' pages resident
    # (it only ever hands back the free top of the heap by itself) until asked for them.
    stay, go = [], []
    for _ in range(10_000):
        stay.append(bytes(8192))
        go.append(bytes(8192))
    del go
    kept = memory_mb()["RssAnon"]
    held = held_memory_mb()["RssAnon"]
    assert kept - held > 20, (kept, held)  # ~40 MB here: a page of each hole
    del stay


def test_a_minute_long_call_keeps_memory_work_in_flight_and_latency_flat(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sandbox.cli", "bench", "--soak", "1", "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, HOME_ENV: str(tmp_path / "home")},
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert "a 1-minute sim call" in done.stderr
    assert figures["audio"] == "sim" and 59 <= figures["call_s"] <= 62
    # The caller's script ran: turns answered, a barge-in among them.
    assert figures["turns_answered"] >= 4 and figures["barge_ins"] >= 1
    samples = figures["samples"]
    assert len(samples) >= 50  # one a second
    assert all(s["anon_mb"] + s["file_mb"] + s["shmem_mb"] <= s["rss_mb"] + 0.1 for s in samples)
    # Nothing piles up: the recorder and the core keep up; no task or thread is left behind.
    assert figures["in_flight_max"] <= 20 and figures["in_flight_growth"] <= 1
    assert figures["tasks_end"] <= figures["tasks_start"] + 1
    assert samples[-1]["threads"] <= samples[len(samples) // 5]["threads"]
    # Memory: a leak of every frame as decoded fields grows ~3 MB in ten minutes of call,
    # well under a megabyte in this one; what a minute can show is a gross leak.
    assert figures["rss_end_mb"] - figures["rss_start_mb"] < 2.0
    # Latency at the end as at the start (the built-in brain answers in tens of ms).
    assert figures["first_chunk_end_ms"] < figures["first_chunk_start_ms"] + 100
    # A sample waits for a quiet moment in its second: the sim's bot speaks most of the
    # call, but between a reply and the next question there is one now and then.
    assert 0 < figures["quiet_samples"] <= sum(s["quiet"] for s in samples) < len(samples)
    assert set(figures["targets"]) == {
        "rss_slope_mb_per_10min",
        "quiet_rss_trend_mb_per_10min",
        "in_flight_growth",
        "first_chunk_drift_ms",
    }
