"""A brain that misbehaves on purpose, one behaviour per test, over a real socket.

Each brain (``sandbox/brains/hostile.py``) greets, then answers the caller's first line
with one misbehaviour. The call must answer as the wire contract says (a PROTOCOL
Error and the frame dropped, or the call ended) within 5 s, stay bounded, go on
where it can, and its report must say what happened.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import Input
from ui_rig import SIZE, greeted, host_of, make_app, say, use_home

from sandbox.brains.hostile import (
    ANSWER,
    GREETING,
    Hostility,
    hostile_process,
    main,
    serve_hostile,
)
from sandbox.call import units as units_module
from sandbox.call.heard import HeardCursor
from sandbox.call.sim_playout import SimPlayout
from sandbox.call.units import MAX_CHUNK_CHARS, Bracket, Fate, Unit
from sandbox.caller.script import parse_script
from sandbox.caller.script_runner import ScriptRunner, play_through
from sandbox.host.brain_side import MAX_WAITING_FRAMES
from sandbox.host.launch import CallOptions, open_call
from sandbox.host.session import CallHost
from sandbox.record.recorder import CUT_KEPT_BYTES
from sandbox.record.session_kinds import CallMode
from sandbox.ui.app import SandboxApp
from sandbox.wire.dial import MAX_MESSAGE_BYTES

#: Two caller lines: the first meets the misbehaviour, the second must still be answered.
TWO_LINES = """
ms_per_word = 10
[[step]]
say = "Hello there."
[[step]]
say = "Are you still there?"
"""
#: The second line, said over the bot once "This unit never" played (its last word waits for
#: the chunk that may continue it, or the unit's end, neither of which comes).
CUT_IN_AT_THE_END = 'barge_in = "Are you still there?"\nafter_words = 3'
#: The contract's answer must come within this long of the misbehaviour.
ANSWER_WITHIN_MS = 5_000


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_home(monkeypatch, tmp_path)


@dataclass
class Call:
    """A finished call against a hostile brain: its host and its written report."""

    host: CallHost
    report: dict[str, Any]
    path: Path

    def unit(self, speech_id: int) -> Unit:
        found = self.host.core.unit(speech_id)
        assert found is not None, f"no unit {speech_id}"
        return found

    def frame_time(self, direction: str, kind: str, after: int = 0) -> int:
        """When the first frame of ``kind`` crossed in ``direction`` at or after ``after``."""
        return next(
            f.t_ms
            for f in self.host.recorder.frames
            if f.dir == direction and f.type == kind and f.t_ms >= after
        )

    def errors(self, code: str) -> list[dict[str, Any]]:
        return [e for e in self.report["errors"] if e["code"] == f"ERROR_CODE_{code}"]


async def scripted(
    behaviour: str,
    tmp_path: Path,
    script: str = TWO_LINES,
    how: Hostility | None = None,
    *,
    patience_s: float = 20,
) -> Call:
    """The call a caller script makes against ``behaviour``, recorded, report written; the
    caller waits ``patience_s`` with nothing from the bot before speaking anyway (noted)."""
    async with serve_hostile(behaviour, how) as url:
        options = CallOptions(brain_url=url, recording=CallMode.SIM)
        host = await open_call(options, url, SimPlayout(ms_per_word=10))
        runner = ScriptRunner(host, parse_script(script), step_timeout_s=patience_s)
        await play_through(host, runner)
    path = host.recorder.write(tmp_path / "report.json", host.core, host.now())
    report = json.loads(path.read_text())
    gave_up = [note for note in runner.notes if "gave up waiting for the bot to finish" in note]
    assert runner.notes == gave_up and (patience_s < 20 or not gave_up), runner.notes
    return Call(host, report, path)


def spoken(call: Call) -> list[tuple[int, str, str]]:
    """Every unit as (turn, fate, heard)."""
    return [(u.turn_id, u.fate.value if u.fate else "", u.heard) for u in call.host.core.units]


async def test_a_unit_left_open_after_speech_start_stays_open_as_dead_air(
    tmp_path: Path,
) -> None:
    """001: "Every SpeechStart is closed by a SpeechEnd or a SpeechCancel" (the brain's
    brackets; the wire gives the runtime no limit on them). A brain that opens a unit and
    goes quiet is dead air, shown and recorded, until the caller speaks into it: no Error,
    and the caller's next line kills the turn as any new turn does."""
    call = await scripted("stall_after_start", tmp_path, patience_s=3)
    asked, spoke = [f.t_ms for f in call.host.recorder.frames if f.type == "user_message"]
    opened = call.frame_time("in", "speech_start", after=asked)  # the unit left open
    assert call.report["errors"] == []
    assert spoken(call)[1:] == [(2, "barged", ""), (3, "played", ANSWER)]
    (gap,) = call.report["dead_air"]
    assert (gap["turn_id"], gap["speech_id"]) == (2, 2)
    # It runs from the unit's opening to the caller's line (the frame log stamps a frame as
    # it crosses, a few ms from the core's moment).
    assert abs(gap["t_ms"] - opened) <= 20 and abs(gap["t_ms"] + gap["silent_ms"] - spoke) <= 20
    assert call.report["stalls"] == []  # the brain answered the turn: it opened a unit


async def test_a_unit_never_ended_plays_and_stays_open_until_the_caller_cuts_in(
    tmp_path: Path,
) -> None:
    """A unit with a sentence and no SpeechEnd plays what it can; the unit stays open (the
    runtime closes no bracket) until the caller barges in, and its Finalize is what played."""
    script = TWO_LINES.replace('say = "Are you still there?"', CUT_IN_AT_THE_END)
    call = await scripted("never_ends", tmp_path, script)
    assert call.report["errors"] == []
    assert call.unit(2).bracket is Bracket.OPEN
    assert spoken(call)[1:] == [(2, "barged", "This unit never"), (3, "played", ANSWER)]


async def test_a_flood_of_20000_chunks_is_taken_as_it_comes() -> None:
    """10,000 small frames a second for 2 s from a brain in its own process: every chunk
    relayed within 5 s of the last one sent, the inbound queue bounded, and the caller
    cuts the unit and is answered."""
    waiting: list[int] = []
    with hostile_process("flood") as url:
        host = await open_call(CallOptions(brain_url=url), url, SimPlayout(ms_per_word=10))
        host.on_frame.append(lambda _record: waiting.append(host.brain.frames_waiting))
        running = asyncio.create_task(host.run())
        assert await host.wait_for(lambda: _unit_state(host, 1) is Bracket.ENDED, 10)
        host.caller_turn("Hello there.")
        assert await host.wait_for(lambda: _unit_state(host, 2) is not None, 10)
        first = time.monotonic()
        assert await host.wait_for(lambda: _unit_state(host, 2) is Bracket.ENDED, 15)
        took = time.monotonic() - first
        host.barge_in()
        host.caller_turn("Stop, please.")
        assert await host.wait_for(lambda: _unit_state(host, 3) is Bracket.ENDED, 10)
        host.hang_up()
        await running
    assert took < 2 + ANSWER_WITHIN_MS / 1000
    assert max(waiting) <= MAX_WAITING_FRAMES
    flooded = host.core.unit(2)
    assert flooded is not None and flooded.fate is Fate.BARGED
    assert flooded.cursor.words_total == 20_000 and flooded.heard.startswith("word word")


def _unit_state(host: CallHost, speech_id: int) -> Bracket | None:
    unit = host.core.unit(speech_id)
    return None if unit is None else unit.bracket


def test_relaying_a_chunk_costs_the_chunk_not_the_unit() -> None:
    """Per-chunk time at 2,000 and 20,000 chunks of one unit: flat, not growing with the
    unit (the cursor used to re-split the whole text on every chunk)."""

    def per_chunk(chunks: int) -> float:
        cursor = HeardCursor()
        start = time.perf_counter()
        for _ in range(chunks):
            cursor.extend("word ")
        cursor.played("word")
        return (time.perf_counter() - start) / chunks

    per_chunk(2_000)  # warm
    assert per_chunk(20_000) < 3 * per_chunk(2_000)


async def test_a_10_mb_chunk_is_dropped_with_a_protocol_error(tmp_path: Path) -> None:
    call = await scripted("huge_chunk", tmp_path)
    (error,) = call.errors("PROTOCOL")
    assert f"over the {MAX_CHUNK_CHARS:,}-character limit; frame dropped" in error["message"]
    assert error["t_ms"] - call.frame_time("out", "user_message") <= ANSWER_WITHIN_MS
    # The rest of the unit plays, the call goes on, and the report stays small.
    assert spoken(call)[1:] == [(2, "played", "Sorry, that was a lot."), (3, "played", ANSWER)]
    assert call.path.stat().st_size < 1_000_000
    huge = max(
        (f for f in call.report["frames"] if f["type"] == "speech_chunk"),
        key=lambda f: len(f["text"]),
    )
    # Dropped for its size: the report and the store keep its start and its length.
    assert huge["text"].endswith(f"… [{10 * 2**20 - CUT_KEPT_BYTES:,} more characters]")
    assert huge["bytes"] > 10 * 2**20


async def test_a_brain_that_closes_mid_unit_ends_the_call_keeping_what_was_heard(
    tmp_path: Path,
) -> None:
    call = await scripted("closes_mid_unit", tmp_path)
    assert call.report["ended_by"] == "brain_closed"
    assert "code 1011: the brain fell over mid-unit" in call.report["end_detail"]
    cut = call.unit(2)
    assert cut.fate is Fate.ABANDONED and cut.heard and "I was just about to".startswith(cut.heard)


async def test_speech_for_a_turn_far_ahead_is_refused_and_the_call_goes_on(
    tmp_path: Path,
) -> None:
    call = await scripted("future_turns", tmp_path)
    (error,) = call.errors("PROTOCOL")
    assert "names turn 1000002, which was never minted; unit refused" in error["message"]
    assert [s.get("unknown_turn") for s in call.report["steps"]] == [True]
    assert [u.speech_id for u in call.host.core.units] == [1, 3, 4]  # unit 2 never opened
    assert spoken(call)[1:] == [(2, "played", ANSWER), (3, "played", ANSWER)]


async def test_a_brain_silent_after_the_upgrade_is_reported_within_5_s() -> None:
    async with serve_hostile("silent") as url:
        host = await open_call(CallOptions(brain_url=url), url, SimPlayout(ms_per_word=10))
        running = asyncio.create_task(host.run())
        assert await host.wait_for(lambda: bool(host.core.ledger.stalls), 6)
        host.hang_up()
        await running
    (stall,) = host.core.ledger.stalls
    assert stall.turn_id == 1 and stall.t_ms <= ANSWER_WITHIN_MS
    assert host.core.units == []


async def test_text_websocket_messages_are_errors_and_the_call_goes_on(tmp_path: Path) -> None:
    call = await scripted("text_messages", tmp_path)
    errors = call.errors("MALFORMED")
    assert [e["message"] for e in errors] == [
        "text WebSocket message: the wire carries binary messages only"
    ] * 2
    assert spoken(call) == [(1, "played", GREETING), (2, "played", ANSWER), (3, "played", ANSWER)]


async def test_a_never_ending_stream_while_the_caller_talks_stays_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Valid chunks for ever, Interruption ignored, a new endless unit for every line: the
    caller still takes the floor, each unit keeps at most MAX_UNIT_CHARS (2,000 here, so it
    is passed in seconds) and errors stop at one per unit; hanging up ends the call."""
    monkeypatch.setattr(units_module, "MAX_UNIT_CHARS", 2_000)
    script = """
    ms_per_word = 10
    [[step]]
    say = "Hello there."
    [[step]]
    barge_in = "Stop."
    after_words = 10
    [[step]]
    barge_in = "I said stop."
    after_words = 10
    [[step]]
    end = "now"
    """
    how = Hostility(per_second=5_000)
    started = time.monotonic()
    call = await scripted("endless", tmp_path, script, how)
    assert time.monotonic() - started < 10  # hanging up is not held up by the stream
    assert call.report["ended_by"] == "caller"
    turns = [(u.turn_id, u.fate) for u in call.host.core.units[1:]]
    assert turns[:2] == [(2, Fate.BARGED), (3, Fate.BARGED)]  # turn 4's, if it opened: cut
    for unit in call.host.core.units[1:]:
        assert unit.kept_chars <= 2_000
    passed = [e for e in call.errors("PROTOCOL") if "the most one unit keeps" in e["message"]]
    assert 1 <= len(passed) <= 3 and len(call.report["errors"]) == len(passed)


#: Keys typed under the flood: enough for a typical key.
KEYS = "abcdefghijklmnopqrstuvwx"


async def test_keys_are_answered_within_100_ms_while_a_brain_floods_the_app() -> None:
    """The app in a pilot against the flood (10,000 frames a second from another process):
    a key typed into the message box shows there within 100 ms while the frames pour in.
    Before the app drew frames in bursts, every key waited 0.4-0.8 s, the app's own work.

    What is timed is the app's own delay: the wall clock less the time its thread stood
    ready to run while other processes held the CPU, which a shared machine adds at random
    (one key in 12 took 241 ms on the wall clock once in CI). The typical key of 24 must
    show within 100 ms, the slowest within 500 ms: a flood that piled up while the app
    waited for the CPU is a bigger burst to draw (the slowest took 116-305 ms of the app's
    own time at a load average of ~20 on 2 cores). A first key, before the flood, warms the
    box up; typing starts once the flooded unit is on screen."""
    # 12 s of it: on a loaded CI machine 24 keys took longer than 6 s to type.
    with hostile_process("flood", "--chunks", "120000") as url:
        app = make_app(ms_per_word=10, brain_url=url)
        async with app.run_test(size=SIZE) as pilot:
            await greeted(pilot)
            box = app.query_one("#say", Input)
            await _typed(app, box, "w")
            await say(pilot, "Hello there.")
            await _until(lambda: _unit_on_screen(app, 2), "the flood on screen")
            answered = [await _typed(app, box, key) for key in KEYS]
            flooding = _unit_state(host_of(app), 2) is Bracket.OPEN
            app.post_message(events.Key("f10", None))  # not pilot.press: it waits for idle
            # Hanging up stores every frame the flood sent: seconds on a loaded machine.
            await _until(lambda: app.report is not None, "the report", 60)
    assert flooding, "the flood was over before the keys were typed"
    own = [a.own for a in answered]
    shown = [f"{a.own * 1000:.0f} ms ({a.wall * 1000:.0f} ms on the wall clock)" for a in answered]
    assert statistics.median(own) < 0.1, shown
    assert max(own) < 0.5, shown


def _unit_on_screen(app: SandboxApp, speech_id: int) -> bool:
    line = app.conversation.unit_line(speech_id)
    return line is not None and line.is_mounted


async def _until(predicate: Callable[[], bool], what: str, timeout_s: float = 10) -> None:
    """Wait for ``predicate`` without waiting for the app to be idle (a flood never is)."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.005)


@dataclass(frozen=True)
class Answered:
    """How long a typed key took to show: ``wall``, and ``own``, the same less the time the
    app's thread stood ready to run while other processes held the CPU (seconds)."""

    wall: float
    own: float


def _waited_for_cpu() -> float:
    """Seconds this thread (the app's and the pilot's) has stood runnable, not run: the
    kernel's run-queue delay from /proc/thread-self/schedstat."""
    return int(Path("/proc/thread-self/schedstat").read_text().split()[1]) / 1e9


async def _typed(app: SandboxApp, box: Input, key: str) -> Answered:
    """Type ``key``; how long until the box shows it."""
    pressed, queued = time.monotonic(), _waited_for_cpu()
    app.post_message(events.Key(key, key))
    while not box.value.endswith(key):
        await asyncio.sleep(0.002)
    wall = time.monotonic() - pressed
    answered = Answered(wall, wall - (_waited_for_cpu() - queued))
    await asyncio.sleep(0.05)  # keys a person types, not a paste
    return answered


async def test_a_message_over_16_mib_ends_the_call_saying_why(tmp_path: Path) -> None:
    """Refused from its header, before its payload is read: the socket closes (1009)."""
    how = Hostility(huge_bytes=MAX_MESSAGE_BYTES + 1)
    call = await scripted("huge_chunk", tmp_path, how=how)
    assert call.report["ended_by"] == "brain_closed"
    assert call.report["end_detail"].startswith("the brain sent a message over the 16 MiB limit")
    assert "(code 1009)" in call.report["end_detail"]
    assert call.unit(2).fate is Fate.ABANDONED


@pytest.mark.parametrize("bad", ["99999", "-1", "http", "\x1b[31m1"])
def test_a_bad_port_for_a_hostile_brain_is_refused_in_one_line(
    bad: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--port`` takes what every listener's does (0 to 65535, 0 any free port): a port
    out of range or not a number is argparse's usage then one line, exit 2."""
    with pytest.raises(SystemExit) as exited:
        main(["flood", "--port", bad])
    assert exited.value.code == 2
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert said.startswith("python -m sandbox.brains.hostile: error: argument --port: must be")
    assert "\x1b" not in said
