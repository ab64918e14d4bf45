"""The built-in brain with a caller who says nothing (issue 57, item 2), through ``sandbox
call`` and through the app in tmux: two nudges, the goodbye played whole, and the brain, not
the caller, ends the call, as the report, the stored session and the app's last line say."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from brain_process import reported_call, run
from ui_tmux import sandbox_run

from sandbox.paths import HOME_ENV

#: Far longer than the brain waits: the call ends before this silence does.
ABSENT_CALLER = "ms_per_word = 30\n[[step]]\nsilence_ms = 120000\n"


def test_the_built_in_brain_lets_a_silent_caller_go(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done, report = reported_call(tmp_path, home, ABSENT_CALLER, "--idle-ms", "400")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the brain hung up" in done.stdout
    assert report["ended_by"] == "brain"
    idle = [f["level"] for f in report["frames"] if f["type"] == "user_idle"]
    assert idle == [1, 2, 3]  # no nudge after the goodbye
    goodbye = report["units"][-1]
    assert goodbye["heard"] == goodbye["generated"] and "Goodbye" in goodbye["heard"]
    listed = run(tmp_path, home, "sessions", "list", "--json")
    (row,) = [json.loads(line) for line in listed.stdout.splitlines()]
    assert row["ended_by"] == "brain", row


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_the_app_shows_the_brain_letting_an_absent_caller_go(tmp_path: Path) -> None:
    """``sandbox run --typed`` left alone: the nudges, the goodbye, and the app's last line
    saying the brain hung up, as the issue's user would have seen after the third nudge."""
    report = tmp_path / "report.json"
    args = ["--typed", "--ms-per-word", "30", "--idle-ms", "400", "--report", str(report)]
    with sandbox_run(args, {HOME_ENV: str(tmp_path / "home")}) as term:
        screen = term.wait_for(lambda s: "Call ended" in s, "the brain to end the call", 60)
        assert "Call ended: the brain hung up" in " ".join(screen.split()), screen
        term.keys("C-q")
        screen = term.wait_for(lambda s: "EXIT=" in s, "the app to exit")
        assert "EXIT=0" in screen and "Traceback" not in screen
    data = json.loads(report.read_text())
    assert data["ended_by"] == "brain"
    assert [f["level"] for f in data["frames"] if f["type"] == "user_idle"] == [1, 2, 3]
