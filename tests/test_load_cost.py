"""What a load run leaves out to be cheap changes nothing a call comes to: a call kept
nowhere (``--keep none``) yields the result a kept one does, a kept call still stores its
events and its report, the host's waits wake when what they wait for holds (or the call
ends), and the garbage collector held for a run is given back as it was."""

from __future__ import annotations

import asyncio
import gc
import json
import weakref
from pathlib import Path

from cli_rig import sandbox_cli
from load_brains import serve_dropper

from sandbox.brains import Echo
from sandbox.call.sim_playout import SimPlayout
from sandbox.caller.script import load_script
from sandbox.harness.inproc import open_inproc_call
from sandbox.host.launch import CallOptions
from sandbox.host.session import CallHost
from sandbox.load.call_result import CallResult
from sandbox.load.collector import collector_held
from sandbox.load.echo_process import free_port
from sandbox.load.one_call import DEFAULT_SCRIPT, Target, place_call
from sandbox.record.store import SessionStore
from sandbox.sdk import serve


def _came_to(result: CallResult) -> tuple[object, ...]:
    """All a call's result says but its session and its timings."""
    return (
        result.outcome,
        result.ended_by,
        result.detail,
        result.errors,
        result.rules,
        result.unjudged,
        len(result.first_chunk_ms),
        len(result.finalize_ms),
    )


async def _kept_and_not(url: str) -> tuple[CallResult, CallResult]:
    script = load_script(DEFAULT_SCRIPT)
    kept = await place_call(0, Target(url, script, record=True))
    unkept = await place_call(1, Target(url, script, record=False))
    return kept, unkept


async def test_a_call_kept_nowhere_comes_to_what_a_kept_one_does(home: Path) -> None:
    server = await serve(Echo)
    try:
        kept, unkept = await _kept_and_not(f"ws://127.0.0.1:{server.port}/brain")
    finally:
        await server.close()
    assert kept.outcome == "completed" and kept.ended_by == "caller"
    assert _came_to(kept) == _came_to(unkept)
    with SessionStore() as store:  # the kept call alone is stored, whole
        assert [row.id for row in store.sessions()] == [kept.session_id]
        kinds = {event.kind for event in store.events(kept.session_id)}
        report = store.report(kept.session_id)
        frames = store.frames(kept.session_id)
    assert {"word_played", "state_changed", "unit_played"} <= kinds
    assert report is not None and report["outcome"] == "completed" and "record" in report
    assert len(frames) == len(report["frames"])


async def test_a_dropped_call_kept_nowhere_is_failed_as_a_kept_one_is(home: Path) -> None:
    server = await serve_dropper(at_accept=False)
    try:
        kept, unkept = await _kept_and_not(f"ws://127.0.0.1:{server.port}/brain")
    finally:
        await server.close()
    assert kept.errors and kept.failed
    assert _came_to(kept) == _came_to(unkept)


async def test_a_call_never_placed_is_not_reached_kept_or_not(home: Path) -> None:
    kept, unkept = await _kept_and_not(f"ws://127.0.0.1:{free_port()}/brain")
    assert kept.ended_by == "dial_failed"
    assert _came_to(kept) == _came_to(unkept)


def _echo_call() -> CallHost:
    return open_inproc_call(CallOptions(), Echo(), SimPlayout(ms_per_word=5))


async def test_a_wait_wakes_once_what_it_waits_for_holds() -> None:
    host = _echo_call()
    running = asyncio.create_task(host.run())
    heard = asyncio.create_task(host.wait_for(lambda: host.words_played >= 3, 30))
    host.caller_turn("hello there, how are you today")
    assert await asyncio.wait_for(heard, 5) is True
    assert host.words_played >= 3
    host.hang_up()
    await asyncio.wait_for(running, 5)


async def test_a_wait_for_what_never_comes_ends_with_the_call_not_its_timeout() -> None:
    host = _echo_call()
    running = asyncio.create_task(host.run())
    never = asyncio.create_task(host.wait_for(lambda: False, 600))
    await asyncio.sleep(0.05)
    host.hang_up()
    assert await asyncio.wait_for(never, 5) is False
    await asyncio.wait_for(running, 5)


async def test_a_waits_predicate_that_raises_raises_in_the_waiter() -> None:
    host = _echo_call()
    running = asyncio.create_task(host.run())

    def broken() -> bool:
        if host.words_played:
            raise ValueError("the predicate broke")
        return False

    waiting = asyncio.create_task(host.wait_for(broken, 30))
    host.caller_turn("hello")
    try:
        await asyncio.wait_for(waiting, 5)
    except ValueError as exc:
        assert str(exc) == "the predicate broke"
    else:
        raise AssertionError("the waiter did not raise")
    host.hang_up()
    await asyncio.wait_for(running, 5)  # the host itself went on


class _Node:
    link: _Node | None = None


def test_the_collector_held_for_a_run_collects_every_so_many_calls_and_is_given_back() -> None:
    assert gc.isenabled()
    with collector_held(every=2) as held:
        assert not gc.isenabled()
        node = _Node()
        node.link = node  # a cycle: only the collector frees it
        gone = weakref.ref(node)
        del node
        held.call_ended()
        assert gone() is not None  # held: not collected after one call
        held.call_ended()
        assert gone() is None  # the second call's end ran a full pass
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_memory_a_call_is_the_runs_own_when_a_large_process_started_it(tmp_path: Path) -> None:
    """Started by a process larger than the run will grow (the bench, 800 MB), the run still
    reports its own growth: ``ru_maxrss`` kept the parent's peak across exec and read 0."""
    ballast = b"x" * (600 * 2**20)  # resident: every page written
    out = tmp_path / "load.json"
    command = ["load", "--brain", "echo", "--script", str(DEFAULT_SCRIPT), "--calls", "200"]
    command += ["--keep", "none", "--json", str(out)]
    done = sandbox_cli(tmp_path, *command)
    assert len(ballast) and done.returncode == 0, done.stderr
    runtime = json.loads(out.read_text())["runtime"]
    assert 0 < runtime["peak_rss_growth_mib"] < 600 and runtime["rss_kib_per_call"] > 0
