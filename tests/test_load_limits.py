"""`sandbox load` knows its own limits: it ramps its dials by itself, says in words when the
overload is its own (never the brain's), stops when its calls are done, and bounds every
number it takes."""

from __future__ import annotations

import asyncio
import json
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_rig import sandbox_cli

from sandbox.caller.script import load_script
from sandbox.load.call_result import OVERLOADED, CallResult
from sandbox.load.echo_process import free_port
from sandbox.load.loop_lag import LoopLag
from sandbox.load.one_call import DEFAULT_SCRIPT, DIALS_AT_ONCE, Target
from sandbox.load.run import LoadPlan, LoadRun, run_load
from sandbox.load.table import overload_lines
from sandbox.paths import HOME_ENV

SCRIPT = str(DEFAULT_SCRIPT)


@pytest.mark.slow
def test_two_thousand_calls_at_once_all_reach_the_built_in_brain(
    home: Path, tmp_path: Path
) -> None:
    out = tmp_path / "load.json"
    done = sandbox_cli(
        home, "load", "--brain", "builtin", "--script", SCRIPT, "--calls", "2000",
        "--concurrency", "2000", "--keep", "none", "--json", str(out), timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    doc = json.loads(out.read_text())
    # 1,118 of them were not_reached, each blaming the brain, before the dials were gated.
    assert (doc["calls"], doc["completed"], doc["errors"]) == (2000, 2000, {})
    assert doc["peak_concurrency"] == 2000


async def test_dials_are_gated_however_many_calls_start_at_once(home: Path) -> None:
    """A server that counts the upgrades it holds at once, each held 50 ms and then refused
    (HTTP 404: a dial that is not retried)."""
    holding = most = 0

    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal holding, most
        await reader.readline()
        holding += 1
        most = max(most, holding)
        await asyncio.sleep(0.05)
        holding -= 1
        writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        writer.close()

    server = await asyncio.start_server(hold, "127.0.0.1", 0, backlog=1000)
    port = server.sockets[0].getsockname()[1]
    target = Target(f"ws://127.0.0.1:{port}/brain", load_script(DEFAULT_SCRIPT), record=False)
    try:
        run = await run_load(LoadPlan(120, 120, keep="none", max_failures=120), target)
        await asyncio.sleep(0.2)  # the last upgrades held let go
    finally:
        server.close()
    assert run.tally.done == 120 and run.peak_in_flight == 120  # all of them started at once
    assert 8 <= most <= DIALS_AT_ONCE  # ... and dialed a gateful at a time


async def test_a_dial_failing_while_the_loop_ran_late_is_the_load_generators(
    home: Path,
) -> None:
    url = f"ws://127.0.0.1:{free_port()}/brain"  # refused: each dial retries for 5 s
    target = Target(url, load_script(DEFAULT_SCRIPT), record=False)
    run = LoadRun(LoadPlan(1, 1, keep="none"))

    async def overload() -> None:
        await asyncio.sleep(1.0)
        time.sleep(1.5)  # the loop's one thread busy: what 2,000 calls at once do to it

    asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(overload()))
    await run_load(run.plan, target, run=run)
    (call,) = run.tally.calls
    assert call.errors == [OVERLOADED]
    assert call.detail.startswith("not dialed in time: this load generator's event loop ran 1.")
    assert "could not reach the brain" in call.detail  # the dial's own words, kept
    assert max(run.lag.late_s) >= 1.4
    lines = overload_lines(run)
    assert lines[0].startswith("  this load generator was overloaded on this machine:")
    assert "1 call could not be dialed in time for that (errors: overloaded)" in lines[1]
    assert lines[-1].startswith("  to measure the brain, spread the calls out: --ramp ")


def test_a_quiet_run_says_nothing_of_overload() -> None:
    run = LoadRun(LoadPlan(1, 1))
    run.lag.late_s += [0.001, 0.2]
    run.lag.times += [1.0, 1.1]
    run.tally.add(CallResult(0, "s"))
    assert overload_lines(run) == []


async def test_the_loop_lag_sees_a_blocked_loop() -> None:
    lag = LoopLag()
    async with lag.watching():
        began = time.monotonic()
        await asyncio.sleep(0.25)
        time.sleep(0.6)
        assert lag.worst_since(began) >= 0.5  # the sample still due counts, late as it is
        await asyncio.sleep(0.25)
    figures = lag.figures_ms()
    assert figures["max"] is not None and figures["max"] >= 500
    assert figures["p50"] is not None and figures["p50"] < 100


def test_a_long_ramp_ends_with_its_calls(home: Path) -> None:
    began = time.monotonic()
    done = sandbox_cli(
        home, "load", "--brain", "echo", "--script", SCRIPT, "--calls", "2", "--ramp", "1000",
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"calls completed +2\n", done.stdout)
    assert time.monotonic() - began < 60  # it slept out 500 s of ramp for no call


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--ramp", "1e308"], "--ramp: must be a number of seconds from 0 to 3,600 (got 1e+308)"),
        (["--ramp", "inf"], "--ramp: must be a number of seconds from 0 to 3,600 (got inf)"),
        (["--ramp", "nan"], "--ramp: must be a number of seconds from 0 to 3,600 (got nan)"),
        (["--calls", "0"], "--calls: must be a whole number from 1 to 100,000 (got 0)"),
        (
            ["--calls", "1000000"],
            "--calls: must be a whole number from 1 to 100,000 (got 1,000,000)",
        ),
        (
            ["--concurrency", "10001"],
            "--concurrency: must be a whole number from 1 to 10,000 (got 10,001)",
        ),
        (
            ["--max-failures", "0"],
            "--max-failures: must be a whole number from 1 to 100,000 (got 0)",
        ),
    ],
)
def test_every_number_load_takes_is_bounded_in_words(
    home: Path, args: list[str], words: str
) -> None:
    done = sandbox_cli(home, "load", "--brain", "echo", "--script", SCRIPT, *args, timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == f"sandbox load: error: argument {words}"


def test_calls_the_machine_has_no_files_for_are_refused_before_the_run(home: Path) -> None:
    def few_files() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))

    done = subprocess.run(
        [sys.executable, "-m", "sandbox.cli", "load", "--brain", "echo", "--script", SCRIPT,
         "--calls", "100"],
        capture_output=True, text=True, timeout=60, preexec_fn=few_files,
        env={**__import__("os").environ, HOME_ENV: str(home)},
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr == (
        "sandbox load: 100 calls at once need about 564 open files, and this machine lets a "
        "process open 256 (ulimit -Hn): place at most 38 at once (--concurrency), or raise "
        "the limit\n"
    )
