"""A full disk, through a real ``sandbox call`` on a real small tmpfs: one that fills
mid-call lets the call finish, print its transcript and exit 0, saying the record stopped
and why, with one line about the log and no traceback; one full before the call is refused
as full, never as a store that cannot be read."""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path

import pytest
from brain_process import call, sandbox_command, sandbox_env
from small_disk import fill

SCRIPT = "ms_per_word = 60\n" + "".join(
    f'[[step]]\nsay = "Tell me about your prices please, question {i}"\n' for i in range(6)
)
FIRST = "  caller  [turn 2] Tell me about your prices please, question 0"


def top_up(path: Path) -> None:
    """Fill the last page of ``path`` too: a full tmpfs still has room there, and a log
    line or two would fit."""
    with contextlib.suppress(OSError), path.open("ab", buffering=0) as out:
        while True:
            out.write(b"\n")


def no_traceback(stderr: str) -> None:
    """What a user sees holds no traceback, from the command or from logging."""
    assert "Traceback" not in stderr and "--- Logging error ---" not in stderr, stderr


def test_a_disk_that_fills_mid_call_stops_the_record_not_the_call(small_disk: Path) -> None:
    home = small_disk / "home"
    script = small_disk.parent / "call.toml"
    script.write_text(SCRIPT)
    proc = subprocess.Popen(
        sandbox_command("call", "--script", str(script)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=sandbox_env(home),
    )
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        while FIRST not in lines:
            line = proc.stdout.readline()
            assert line, lines
            lines.append(line.rstrip("\n"))
        fill(small_disk)  # the disk fills while the call goes on
        top_up(home / "logs" / "sandbox.log")
        rest, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    lines += rest.splitlines()
    assert proc.returncode == 0, rest + err
    no_traceback(err)
    assert "unexpected error" not in err
    # The whole call, printed as it went: every question asked and answered.
    asked = [line for line in lines if line.startswith("  caller  [turn ")]
    assert len(asked) == 6 and len([li for li in lines if li.startswith("  bot ")]) == 7
    assert "outcome completed" in rest
    assert "the session store holds the call only in part: the disk is full" in rest
    assert "is full: free some space" in rest and "report: not written to " in rest
    # The log gave up once, in one line, however many lines were logged after.
    logged = [line for line in err.splitlines() if "logging stopped" in line]
    assert logged == [
        f"sandbox: logging stopped: the disk holding {home / 'logs'} is full; "
        "the rest is not logged"
    ], err


@pytest.mark.slow  # the full disk's kind runs by default: the disk filling mid-call
def test_a_disk_full_before_the_call_is_refused_as_full(small_disk: Path, tmp_path: Path) -> None:
    home = small_disk / "home"
    first = call(tmp_path, home, SCRIPT)  # a store, keys and a log already there
    assert first.returncode == 0, first.stdout + first.stderr
    fill(small_disk)
    done = call(tmp_path, home, SCRIPT)
    assert done.returncode == 1, done.stdout + done.stderr
    no_traceback(done.stderr)
    assert f"sandbox call: the disk holding {home} is full: free some space" in done.stderr
    assert "cannot be read" not in done.stderr and "Move it aside" not in done.stderr


def test_a_fresh_data_folder_on_a_full_disk_is_refused_in_words(
    small_disk: Path, tmp_path: Path
) -> None:
    fill(small_disk)
    done = call(tmp_path, small_disk / "home", SCRIPT)
    assert done.returncode == 1, done.stdout + done.stderr
    no_traceback(done.stderr)
    assert "unexpected error" not in done.stderr
    assert "No space left on device" in done.stderr  # the keys, the first thing written
