"""The load run's arithmetic, with no sockets: latencies from the core's records on a fake clock,
percentiles, failure classes, and the table's words."""

from __future__ import annotations

from sandbox.call.effects import SpeakText
from sandbox.call.turn_records import BracketClosed, FinalizeSent, TurnKind, TurnSent
from sandbox.call.unit_records import UnitOpened
from sandbox.check import rules
from sandbox.check.results import Finding
from sandbox.load.call_result import (
    BRAIN_ERROR,
    DROPPED,
    NOT_REACHED,
    STALLED,
    TIMED_OUT,
    CallResult,
    classify,
)
from sandbox.load.latency_watch import LatencyWatch
from sandbox.load.run import LoadPlan, LoadRun
from sandbox.load.table import progress_line, summary_lines
from sandbox.load.tally import Tally, percentile


def test_first_chunk_is_wall_time_from_the_turn_to_its_first_chunk_only() -> None:
    wall = [100.0]  # the fake wall clock's seconds, moved by hand
    call = [0]  # the call's clock, ms
    live: list[float] = []
    watch = LatencyWatch(wall=lambda: wall[0], now=lambda: call[0], on_first_chunk=live.append)
    watch(TurnSent(1, TurnKind.GREETING))
    wall[0] += 0.040
    call[0] = 40
    watch(UnitOpened(1, 1, 0, 0))
    watch(SpeakText(1, "Hi "))
    wall[0] += 0.5
    call[0] = 540
    watch(SpeakText(1, "there."))
    watch(BracketClosed(1, cancelled=False))
    call[0] = 1200
    watch(FinalizeSent(1))
    call[0] = 1500
    watch(TurnSent(2, TurnKind.CALLER, "Yes"))
    wall[0] += 0.012
    call[0] = 1512
    watch(UnitOpened(2, 2, 0, 0))
    watch(SpeakText(2, "Right."))
    watch(BracketClosed(2, cancelled=True))
    call[0] = 1600
    watch(FinalizeSent(2))
    assert [round(ms, 3) for ms in watch.first_chunk_ms] == [40.0, 12.0]
    assert live == watch.first_chunk_ms  # told as each is measured
    # On the call's clock: from the unit's close (End or Cancel) to its Finalize.
    assert watch.finalize_ms == [660.0, 88.0]


def test_a_chunk_for_a_turn_never_asked_is_not_a_latency() -> None:
    watch = LatencyWatch(wall=lambda: 0.0)
    watch(UnitOpened(5, 9, 0, 0))
    watch(SpeakText(5, "Hm."))
    watch(FinalizeSent(5))
    assert watch.first_chunk_ms == [] and watch.finalize_ms == []


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 95) == 95.0
    assert percentile(values, 99) == 99.0
    assert percentile([7.0], 99) == 7.0
    assert percentile([], 50) is None


def test_failures_are_classified_by_how_the_call_ended() -> None:
    assert classify("caller", [], stalled=False, gave_up=False) == []
    assert classify("dial_failed", [], stalled=False, gave_up=False) == [NOT_REACHED]
    assert classify("brain_closed", [], stalled=True, gave_up=True) == [DROPPED, STALLED, TIMED_OUT]
    assert classify(
        "brain_error", ["ERROR_CODE_INTERNAL", "ERROR_CODE_INTERNAL"], False, False
    ) == [
        BRAIN_ERROR,
        "ERROR_CODE_INTERNAL",
    ]


def _call(index: int, *, rule: bool = False, errors: list[str] | None = None) -> CallResult:
    findings = [Finding(rules.BRACKETS_BALANCE, "a chunk after SpeechEnd")] if rule else []
    return CallResult(
        index,
        f"session-{index}",
        first_chunk_ms=[10.0 * (index + 1)],
        finalize_ms=[900.0],
        findings=findings,
        errors=errors or [],
    )


def test_the_tally_and_table_count_completed_flagged_and_errors() -> None:
    run = LoadRun(LoadPlan(calls=5, concurrency=2))
    for result in (_call(0), _call(2, rule=True), _call(1), _call(3, errors=[DROPPED])):
        run.tally.add(result)
        run.live_first_chunk_ms += result.first_chunk_ms
    tally = run.tally
    assert (tally.done, tally.completed, tally.failed) == (4, 3, 2)
    assert [c.index for c in tally.flagged] == [2]
    assert tally.errors == {DROPPED: 1}
    words = "\n".join(summary_lines(run))
    assert "calls placed                         4 of 5" in words
    assert "calls with wire-rule findings        1" in words
    assert "first chunk latency p50 / p95 / p99  20 ms / 40 ms / 40 ms" in words
    assert "3: session-2" in words  # call number 3 (index 2), by session
    assert "1  Invariants: Brackets balance." in words
    assert f"1  {DROPPED}" in words
    assert progress_line(run).startswith("4/5 calls · 2 failed · 0 at once · first chunk p50 20 ms")


def test_json_lists_every_call_in_order() -> None:
    tally = Tally()
    for index in (2, 0, 1):
        tally.add(_call(index))
    doc = tally.as_json(wall_s=2.0)
    assert [c["index"] for c in doc["per_call"]] == [0, 1, 2]
    assert doc["calls_per_s"] == 1.5
    assert doc["first_chunk_ms"] == {"p50": 20.0, "p95": 30.0, "p99": 30.0}
