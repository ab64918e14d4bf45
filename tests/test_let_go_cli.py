"""``sandbox call`` on the built-in brain with a caller who says nothing (issue 57, item 2):
two nudges, the goodbye played whole, and the brain, not the script, ends the call, as the
report and the stored session say."""

from __future__ import annotations

import json
from pathlib import Path

from brain_process import reported_call, run

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
