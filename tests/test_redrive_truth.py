"""A saved session holds what happened, and a re-drive against the same brain says so
(issue 27): typed barge-ins are in the caller's side, a brain's own waits are not skipped by
the warp clock, and any caller text round-trips through ``sandbox sessions script``."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ui_tmux import sandbox_run

from sandbox.call.turn_records import BracketClosed, TurnKind, TurnSent
from sandbox.call.unit_records import UnitOpened
from sandbox.caller.script import parse_script
from sandbox.caller.script_limits import SILENCE_MS
from sandbox.host.warp import WarpClock, hold_for, work_gaps
from sandbox.paths import HOME_ENV
from sandbox.record.store import StoredEvent
from sandbox.replay.caller_script import (
    IDLE_MARGIN_MS,
    caller_steps,
    hang_up_over_bot,
    script_toml,
)

REPO = Path(__file__).resolve().parent.parent


def _sandbox(home: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, HOME_ENV: str(home)}
    return subprocess.run(
        [sys.executable, "-m", "sandbox.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=REPO,
    )


def _newest_session(home: Path) -> str:
    listed = _sandbox(home, "sessions", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    first = json.loads(listed.stdout.splitlines()[0])
    return str(first["id"])


# ------------------------------------------------------------- 1: typed barge-ins


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_a_typed_call_with_barge_ins_redrives_unchanged(tmp_path: Path) -> None:
    """Typing over the bot (enter) and F2 with text both cut it; the script says so, at
    the word they landed on, and a re-drive against the same brain exits 0."""
    home = tmp_path / "home"
    args = ["--typed", "--ms-per-word", "150", "--idle-ms", "0"]
    with sandbox_run(args, {HOME_ENV: str(home)}) as term:
        term.wait_for(lambda s: "greeting · played" in s, "the greeting")
        term.keys("what are your opening hours", "Enter")
        term.wait_for(lambda s: "bot · unit 2 · turn 2 · speaking" in s, "the answer")
        time.sleep(0.8)  # a few words in
        term.keys("how much is a class", "Enter")  # typed over the bot
        term.wait_for(lambda s: "bot · unit 3 · turn 3 · speaking" in s, "the second answer")
        time.sleep(0.8)
        term.keys("where are you")
        term.keys("F2")  # F2 with text in the box
        term.wait_for(lambda s: "bot · unit 4 · turn 4 · played" in s, "the third answer")
        term.keys("C-q")
        assert "EXIT=0" in term.wait_for(lambda s: "EXIT=" in s, "the app to exit")
    session = _newest_session(home)
    script = _sandbox(home, "sessions", "script", session)
    assert script.returncode == 0, script.stderr
    steps = tomllib.loads(script.stdout)["step"]
    assert [next(iter(s)) for s in steps] == ["type", "barge_in", "barge_in"], script.stdout
    assert all(s["after_words"] > 0 for s in steps[1:]), script.stdout
    replay = _sandbox(home, "replay", session, "--brain", "builtin")
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "heard history unchanged" in replay.stdout


def _event(seq: int, t_ms: int, what: str, **data: object) -> StoredEvent:
    return StoredEvent(seq, t_ms, what, dict(data))


def test_a_typed_line_that_cut_the_bot_is_a_barge_in_at_its_word() -> None:
    """Enter over a reply (a barge-in cut, then the typed line) and F2 without text then a
    line later (the call went interrupted): both are barge-ins at the word of the cut."""
    events = [
        _event(1, 100, "word_played", speech_id=2, word="We"),
        _event(2, 200, "word_played", speech_id=2, word="open"),
        _event(3, 250, "cut_playout", reason="barge-in"),
        _event(4, 250, "caller_shown", kind="typed", text="and sunday", turn_id=3),
        _event(5, 400, "word_played", speech_id=3, word="On"),
        _event(6, 450, "state_changed", state="interrupted"),
        _event(7, 900, "word_played", speech_id=4, word="late"),
        _event(8, 2000, "caller_shown", kind="typed", text="thanks", turn_id=4),
        _event(9, 2100, "caller_shown", kind="typed", text="bye", turn_id=5),
    ]
    assert caller_steps([], events) == [
        {"barge_in": "and sunday", "after_words": 2},
        {"barge_in": "thanks", "after_words": 1},
        {"type": "bye"},
    ]


def test_an_idle_longer_than_a_script_step_is_several_silences_a_script_accepts() -> None:
    """A call's idle may be as long as the wire carries (~49 days); a script's silence_ms is
    at most ten minutes. The script ``sessions script`` writes must load (issue 43)."""
    events = [
        _event(1, 100, "caller_shown", kind="typed", text="hello", turn_id=1),
        _event(2, 1_500_000, "caller_idle", turn_id=2, idle_ms=1_400_000, level=1),
        _event(3, 1_600_000, "caller_shown", kind="typed", text="still there", turn_id=3),
    ]
    steps = caller_steps([], events)
    silences = [step["silence_ms"] for step in steps if "silence_ms" in step]
    assert silences == [SILENCE_MS.high, SILENCE_MS.high, 200_000 + IDLE_MARGIN_MS]
    assert [step.get("type") for step in steps if "type" in step] == ["hello", "still there"]
    parse_script(script_toml(steps))  # loads: every number in its range


def test_a_caller_who_hangs_up_over_the_bot_hangs_up_at_that_word() -> None:
    playing = [
        _event(1, 0, "caller_shown", kind="typed", text="hi", turn_id=2),
        _event(2, 10, "state_changed", state="speaking"),
        _event(3, 20, "word_played", speech_id=2, word="Hello"),
        _event(4, 30, "word_played", speech_id=2, word="there"),
    ]
    ended = _event(5, 40, "call_ended", outcome="completed", ended_by="caller", detail="")
    assert hang_up_over_bot([*playing, ended]) == 2
    quiet = _event(5, 35, "state_changed", state="listening")
    assert hang_up_over_bot([*playing, quiet, ended]) is None
    by_brain = _event(5, 40, "call_ended", outcome="completed", ended_by="brain", detail="")
    assert hang_up_over_bot([*playing, by_brain]) is None


# ------------------------------------------------------------- 2: a brain's own waits


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def tool_waits_brain(tmp_path: Path) -> Iterator[str]:
    """The tool-waits brain served by ``sandbox brain`` on a port of its own (it verifies
    tokens against the keys in the test's home)."""
    port = _free_port()
    argv = ["brain", "sandbox/brains/tool_waits.py", "--port", str(port)]
    brain = subprocess.Popen(
        [sys.executable, "-m", "sandbox.cli", *argv],
        cwd=REPO,
        env={**os.environ, HOME_ENV: str(tmp_path / "home")},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield f"ws://127.0.0.1:{port}/brain"
    finally:
        brain.terminate()
        brain.wait(10)


# 250 ms a word: the filler (7 words) still plays when the tool's answer comes in, so the
# caller's next line comes after the answer, as a caller living it would hear it.
TOOL_SCRIPT = """
ms_per_word = 250
[[step]]
say = "What is the weather in Paris?"
[[step]]
say = "And in Rome?"
"""


def test_a_brain_with_tool_waits_redrives_unchanged_on_the_warp_clock(
    tmp_path: Path, tool_waits_brain: str
) -> None:
    home = tmp_path / "home"
    script = tmp_path / "call.toml"
    script.write_text(TOOL_SCRIPT)
    report = tmp_path / "report.json"
    call = _sandbox(
        home, "call", "--brain", tool_waits_brain, "--script", str(script), "--report", str(report)
    )
    assert call.returncode == 0, call.stdout + call.stderr
    recorded = json.loads(report.read_text())
    lines = [u["generated"] for u in recorded["units"]]
    assert lines[1].startswith("One moment") and lines[2].startswith("I looked up What is")
    replay = _sandbox(home, "replay", recorded["session_id"], "--brain", tool_waits_brain)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "heard history unchanged" in replay.stdout


def test_the_hold_is_the_longest_wait_between_a_turns_units() -> None:
    caller = TurnKind.CALLER
    frames: list[tuple[int, object]] = [
        (0, TurnSent(1, TurnKind.GREETING)),
        (5, UnitOpened(1, 1, 0, 0)),
        (6, BracketClosed(1, cancelled=False)),
        (900, TurnSent(2, caller, "hi")),
        (905, UnitOpened(2, 2, 0, 0)),
        (906, BracketClosed(2, cancelled=False)),
        (2106, UnitOpened(3, 2, 0, 0)),  # after a 1.2 s tool
        (2107, BracketClosed(3, cancelled=False)),
        (3000, TurnSent(3, caller, "and?")),
        (3200, UnitOpened(4, 3, 0, 0)),  # thinking: not a gap
    ]
    assert work_gaps(frames) == [pytest.approx(1.2)]
    assert hold_for([1.2]) == pytest.approx(2.0)
    assert hold_for([]) == 0.0


def test_the_clock_learns_a_wait_it_meets_and_holds_for_it() -> None:
    wall = [0.0]
    warp = WarpClock(lambda: wall[0])
    warp.took(TurnSent(2, TurnKind.CALLER, "hi"))
    warp.took(UnitOpened(2, 2, 0, 0))
    warp.took(BracketClosed(2, cancelled=False))
    warp.brain_io(incoming=True)
    wall[0] = 1.0
    assert warp.quiet_left() == 0.0  # nothing seen yet says this brain works between units
    warp.took(UnitOpened(3, 2, 0, 0))
    warp.brain_io(incoming=True)
    assert warp.hold_s == pytest.approx(1.7)
    wall[0] = 2.0
    assert warp.quiet_left() == pytest.approx(0.7)


# ------------------------------------------------------------- 7: any text round-trips

_TEXT = st.text(alphabet=st.characters(exclude_categories=["Cs"]), min_size=1, max_size=40).filter(
    lambda t: t.strip() == t and bool(t)
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["say", "type", "barge_in", "backchannel"]), _TEXT)))
def test_any_caller_text_round_trips_through_the_script(lines: list[tuple[str, str]]) -> None:
    steps: list[dict[str, object]] = [{kind: text} for kind, text in lines] or [{"say": "hi"}]
    parsed = parse_script(script_toml(steps, 60, "s1"), "the script")
    assert [s.text for s in parsed.steps] == [next(iter(s.values())) for s in steps]


def test_sessions_script_writes_a_delete_character_that_call_reads_back(tmp_path: Path) -> None:
    """A caller line with U+007F in it: ``sessions script`` then ``call`` plays it as said."""
    home = tmp_path / "home"
    script = tmp_path / "in.toml"
    said = "what about\u007f the price"
    script.write_text('ms_per_word = 10\n[[step]]\nsay = "what about\\u007f the price"\n')
    first = _sandbox(home, "call", "--script", str(script))
    assert first.returncode == 0, first.stdout + first.stderr
    written = _sandbox(home, "sessions", "script", _newest_session(home))
    assert written.returncode == 0, written.stderr
    again = tmp_path / "again.toml"
    again.write_text(written.stdout)
    report = tmp_path / "again.json"
    second = _sandbox(home, "call", "--script", str(again), "--report", str(report))
    assert second.returncode == 0, second.stdout + second.stderr
    assert json.loads(report.read_text())["caller_turns"] == [said]
