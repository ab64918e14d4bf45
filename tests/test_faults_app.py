"""``sandbox run`` when the process is stopped mid-call, in a real terminal (tmux), typed mode,
the session read back with the real reader: ``kill -9`` leaves a readable, unfinished
session; SIGTERM, SIGINT, SIGHUP and Ctrl-C end the call as hanging up does (every unit
Finalized with what was heard, the session closed) and the app exits without a traceback."""

from __future__ import annotations

import os
import shutil
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from small_disk import fill
from ui_tmux import Terminal, sandbox_run

from sandbox.cli import main
from sandbox.paths import HOME_ENV
from sandbox.record.export import session_report_json
from sandbox.record.store import SessionRow, SessionStore
from sandbox.record.stored_call import frame_record

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")

QUESTION = "what are your prices"


@contextmanager
def answering(home: Path) -> Iterator[Terminal]:
    """The app mid-answer: the caller asked, the bot's reply is being spoken (slowly)."""
    args = ["--typed", "--ms-per-word", "250", "--idle-ms", "0"]
    with sandbox_run(args, {HOME_ENV: str(home)}) as term:
        term.wait_for(lambda s: "greeting · played" in s, "the greeting", timeout_s=60)
        term.keys(QUESTION, "Enter")
        term.wait_for(lambda s: "bot · unit 2 · turn 2 · speaking" in s, "the answer to start")
        yield term


def only_session() -> tuple[SessionRow, dict[str, Any], list[str]]:
    """The one stored session: its row, its report (stored, or rebuilt from its frames), and
    the type of each frame it kept."""
    with SessionStore() as store:
        (row,) = store.sessions()
        frames = [str(frame_record(f).type) for f in store.frames(row.id)]
        return row, session_report_json(store, row), frames


def stored_frames() -> list[str]:
    """The types of the frames committed so far (the app is writing them meanwhile)."""
    with SessionStore() as store:
        rows = store.sessions()
        return [frame_record(f).type for f in store.frames(rows[0].id)] if rows else []


def stored_until(ready: Callable[[list[str]], bool], what: str) -> list[str]:
    """The stored frames' types once ``ready`` holds of them: the writer commits every quarter
    second, so what the screen shows is in the store a moment later."""
    deadline = time.monotonic() + 10
    while not ready(kinds := stored_frames()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} was never stored; the store holds {kinds}")
        time.sleep(0.05)
    return kinds


def answer_started(kinds: list[str]) -> bool:
    """The caller's turn and the start of the reply to it are stored."""
    return "user_message" in kinds and "speech_chunk" in kinds[kinds.index("user_message") :]


def test_kill_9_mid_reply_leaves_a_session_that_reads_back_to_that_moment(home: Path) -> None:
    with answering(home) as term:
        stored_until(answer_started, "the reply's start")
        os.kill(term.app_pid(), signal.SIGKILL)
        assert "EXIT=137" in term.wait_for(lambda s: "EXIT=" in s, "the app to die")
    row, report, frames = only_session()
    assert row.status == "unfinished" and report["ended_by"] == "unfinished"
    assert report["caller_turns"] == [QUESTION]
    greeting, answer = report["units"]
    assert greeting["fate"] == "played" and greeting["heard"] == greeting["generated"]
    assert answer["generated"]  # what the brain sent before the kill is kept
    assert frames.count("user_message") == 1 and "session_start" in frames
    assert main(["sessions", "show", row.id[:8]]) == 0  # the reader's verbs take it as is


@pytest.mark.parametrize(
    "stop",
    # SIGINT and SIGHUP take the same path as SIGTERM: CI runs that one.
    ["SIGTERM", "C-c", *(pytest.param(s, marks=pytest.mark.slow) for s in ("SIGINT", "SIGHUP"))],
)
def test_a_stop_signal_or_ctrl_c_ends_the_call_cleanly(home: Path, stop: str) -> None:
    with answering(home) as term:
        if stop.startswith("SIG"):
            os.kill(term.app_pid(), getattr(signal, stop))
        else:
            term.keys(stop)
        screen = term.wait_for(lambda s: "EXIT=" in s, "the app to exit")
        assert "EXIT=0" in screen and "Traceback" not in screen, screen
    row, report, frames = only_session()
    # Closed as a hang-up ends it (one line is below the floor of a conversation).
    assert row.status == "not_a_conversation" and report["ended_by"] == "caller"
    assert report["caller_turns"] == [QUESTION]
    # Every unit Finalized, the one cut mid-sentence with exactly what had been heard.
    assert frames.count("finalize") == len(report["units"]) == 2
    answer = report["units"][1]
    assert answer["fate"] == "abandoned" and answer["interrupted"]  # the call ended under it
    heard, generated = answer["heard"], answer["generated"]
    assert generated.startswith(heard) and heard != generated
    assert "end" in frames  # closed with the brain, not dropped (its last chunks may follow)


def test_a_disk_that_fills_mid_call_stops_the_recording_with_a_notice_and_the_call_goes_on(
    small_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(HOME_ENV, str(small_disk))
    args = ["--typed", "--ms-per-word", "30", "--idle-ms", "0"]
    with sandbox_run(args, {HOME_ENV: str(small_disk)}) as term:
        term.wait_for(lambda s: "greeting · played" in s, "the greeting", timeout_s=60)
        before = len(stored_until(lambda kinds: "finalize" in kinds, "the greeting's Finalize"))
        fill(small_disk)
        term.keys(QUESTION, "Enter")
        screen = term.wait_for(lambda s: "the disk is full" in s, "the notice")
        assert "recording stopped" in screen
        screen = term.wait_for(lambda s: "bot · unit 2 · turn 2 · played" in s, "the answer")
        term.keys("what about tomorrow", "Enter")  # and the call still takes turns
        term.wait_for(lambda s: "bot · unit 3 · turn 3 · played" in s, "the next answer")
        term.keys("C-q")
        screen = term.wait_for(lambda s: "EXIT=" in s, "the app to exit").replace("\n", "")
        # The report cannot be written either, and the app says so, and where the call is.
        assert "could not write the report" in screen and "on device" in screen
        assert "`sandbox sessions list` shows the call" in screen and "EXIT=1" in screen
        assert "Traceback" not in screen
    # What was committed before the disk filled reads back whole.
    row, report, frames = only_session()
    assert row.status == "unfinished" and len(frames) >= before
    assert frames[0] == "session_start" and report["units"][0]["fate"] == "played"
    assert main(["sessions", "show", row.id[:8]]) == 0
