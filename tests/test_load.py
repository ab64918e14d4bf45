"""``sandbox load``: many simulated calls at once through the real call core, against brains
served over real sockets (the echo brain, one that breaks a rule on every third call, one
that drops its calls, and none at all)."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from pathlib import Path

import pytest
from load_brains import serve_dropper, serve_every_third, serve_slowing

from sandbox.brains.echo import Echo
from sandbox.caller.script import load_script
from sandbox.cli import main
from sandbox.load.call_result import DROPPED, NOT_REACHED, TIMED_OUT
from sandbox.load.echo_process import echo_brain, free_port
from sandbox.load.one_call import DEFAULT_SCRIPT, Target
from sandbox.load.run import LoadPlan, run_load
from sandbox.record.store import SessionStore
from sandbox.sdk import serve


def _sockets() -> int:
    """Sockets this process holds open (Linux: its file descriptors that are sockets)."""
    links = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(FileNotFoundError):  # the listing's own descriptor
            links.append(os.readlink(f"/proc/self/fd/{fd}"))
    return sum(1 for link in links if link.startswith("socket:"))


def test_twenty_calls_against_the_echo_brain_all_complete_and_are_saved(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "load.json"
    with echo_brain() as url:  # its own process, as a user runs it
        code = main(
            ["load", "--brain", url, "--script", str(DEFAULT_SCRIPT), "--calls", "20",
             "--concurrency", "10", "--json", str(out)]
        )  # fmt: skip
    printed = capsys.readouterr()
    assert code == 0, printed.out + printed.err
    assert "calls completed                      20" in printed.out
    assert "first chunk latency p50 / p95 / p99" in printed.out
    assert "Traceback" not in printed.err
    doc = json.loads(out.read_text())
    assert (doc["calls"], doc["completed"], doc["with_findings"]) == (20, 20, 0)
    assert doc["errors"] == {} and doc["rules"] == {}
    for call in doc["per_call"]:
        assert call["outcome"] == "completed" and call["ended_by"] == "caller"
        assert len(call["first_chunk_ms"]) == 4  # the greeting, two turns, the barge-in
        assert len(call["finalize_ms"]) == 4
    assert doc["first_chunk_ms"]["p50"] < 1000
    with SessionStore() as store:  # 20 calls: every one kept
        kept = {row.id for row in store.sessions()}
    assert kept == {call["session_id"] for call in doc["per_call"]}


async def test_a_brain_breaking_a_rule_on_every_third_call_has_exactly_those_flagged(
    home: Path, tmp_path: Path
) -> None:
    # No barge-in: the rule breaker's short reply would leave it waiting for words.
    script = tmp_path / "two_turns.toml"
    script.write_text('[[step]]\nsay = "Hello there."\n[[step]]\nsay = "Is it open today?"\n')
    server, brain = await serve_every_third()
    target = Target(f"ws://127.0.0.1:{server.port}/brain", load_script(script))
    try:
        run = await run_load(LoadPlan(12, 4, keep="failed"), target)
    finally:
        await server.close()
    flagged = {call.session_id for call in run.tally.flagged}
    assert len(brain.broken) == 4
    assert flagged == brain.broken
    assert all("Invariants" in rule for rule in run.tally.rules)
    assert run.tally.rules.total() == 4
    assert run.tally.completed == 12  # a broken rule is a finding, not an error
    with SessionStore() as store:  # --keep failed: the flagged calls alone stay saved
        assert {row.id for row in store.sessions()} == flagged


async def test_relay_leg_carries_twenty_calls_on_one_socket(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = await serve(Echo)
    target = Target(server.relay_url, load_script(DEFAULT_SCRIPT), record=False)
    try:
        with caplog.at_level(logging.INFO, logger="websockets.server"):
            run = await run_load(LoadPlan(20, 20, keep="none"), target, relay=True)
    finally:
        await server.close()
    opened = [r for r in caplog.records if r.getMessage() == "connection open"]
    assert len(opened) == 1
    assert run.tally.completed == 20 and not run.tally.flagged
    assert run.peak_in_flight == 20
    assert all(len(call.first_chunk_ms) == 4 for call in run.tally.calls)


@pytest.mark.parametrize(("at_accept", "error"), [(False, DROPPED), (True, NOT_REACHED)])
async def test_dropped_calls_are_counted_and_the_run_stops_at_max_failures(
    home: Path, at_accept: bool, error: str
) -> None:
    sockets = _sockets()
    writing = {t for t in threading.enumerate() if t.name == "recorder"}  # another test's
    server = await serve_dropper(at_accept=at_accept)
    target = Target(f"ws://127.0.0.1:{server.port}/brain", load_script(DEFAULT_SCRIPT))
    try:
        run = await run_load(LoadPlan(30, 2, max_failures=4), target)
    finally:
        await server.close()
    assert run.stopped_early
    assert 4 <= run.tally.done <= 5  # the call in flight when the limit was hit still ends
    assert run.tally.errors[error] == run.tally.done
    # Every writer this run started is joined (one left by an earlier test in this worker,
    # still joining, is not this run's).
    assert not [t for t in threading.enumerate() if t.name == "recorder" and t not in writing]
    # None left open by this run (fewer is another test's sockets closing in the meantime).
    assert _sockets() <= sockets


async def test_a_brain_slowing_under_load_times_calls_out_and_the_run_still_ends(
    home: Path, tmp_path: Path
) -> None:
    script = tmp_path / "two_turns.toml"
    script.write_text('[[step]]\nsay = "Hello there."\n[[step]]\nsay = "Is it open today?"\n')
    server = await serve_slowing()
    url = f"ws://127.0.0.1:{server.port}/brain"
    target = Target(url, load_script(script), record=False, step_timeout_s=1.5)
    try:
        alone = await run_load(LoadPlan(1, 1, keep="none"), target)
        crowded = await run_load(LoadPlan(6, 6, keep="none"), target)
    finally:
        await server.close()
    assert alone.tally.completed == 1 and not alone.tally.errors  # 0.4 s: in time
    assert crowded.tally.done == 6  # 2.4 s an answer: every call gives up, none hangs
    assert crowded.tally.errors == {TIMED_OUT: 6}
    assert all(call.outcome == "completed" for call in crowded.tally.calls)


def test_a_brain_that_refuses_connections_is_reported_in_words(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"ws://127.0.0.1:{free_port()}/brain"
    code = main(
        ["load", "--brain", url, "--script", str(DEFAULT_SCRIPT), "--calls", "10",
         "--concurrency", "1", "--max-failures", "1"]
    )  # fmt: skip
    printed = capsys.readouterr()
    assert code == 1
    assert "Traceback" not in printed.err
    assert f"{NOT_REACHED}" in printed.out
    assert "stopped early" in printed.out
    assert "calls placed                         1 of 10" in printed.out
