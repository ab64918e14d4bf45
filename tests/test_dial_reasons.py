"""A brain's connection ends in words that say what happened, and a dial that fails is a
session of its own: through the CLI, against a brain that speaks WebSocket by hand
(``raw_brain.py``: bytes no WebSocket library would send) over a real socket."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from brain_process import call, free_port, run

from sandbox.load.echo_process import wait_listening
from sandbox.paths import HOME_ENV
from sandbox.record.store import SessionStore
from sandbox.wire.dial import PING_INTERVAL_S, PING_TIMEOUT_S

RAW_BRAIN = Path(__file__).parent / "raw_brain.py"
SCRIPT = """\
ms_per_word = 60
[[step]]
say = "What are your opening hours?"
[[step]]
say = "And on Sunday?"
"""
#: The words a dropped connection used to be reported with, whatever had happened.
MISREPORTS = ("dropped without a close frame", "Is it running and listening there?")


@contextmanager
def raw_brain(mode: str) -> Iterator[str]:
    """``raw_brain.py MODE`` in a process of its own; yields its URL."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(RAW_BRAIN), mode, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert wait_listening(proc, port, 20), proc.communicate(timeout=5)[1]
        yield f"ws://127.0.0.1:{port}/brain"
    finally:
        proc.terminate()
        proc.wait(10)


def stored(home: Path, monkeypatch: pytest.MonkeyPatch, session_id: str) -> tuple[str, str, str]:
    """The store's row for a session, read back: outcome, ended_by and end_detail."""
    monkeypatch.setenv(HOME_ENV, str(home))
    with SessionStore() as store:
        row = store.find(session_id)
    return row.status, row.ended_by or "", row.end_detail or ""


def session_of(stdout: str) -> str:
    """The session id ``sandbox call`` printed."""
    (line,) = [line for line in stdout.splitlines() if line.startswith("session ")]
    return line.split()[1]


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("opcode", "the brain sent a frame with reserved opcode 3"),
        ("utf8", "the brain sent a text frame that is not valid UTF-8"),
        ("garbage", "the brain sent a masked frame, which a server never sends"),
    ],
)
def test_a_brain_that_breaks_the_websocket_protocol_is_reported_as_doing_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, words: str
) -> None:
    home = tmp_path / "home"
    with raw_brain(mode) as url:
        done = call(tmp_path, home, SCRIPT, "--brain", url)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert "caller  [turn 2] What are your opening hours?" in done.stdout
    assert f"  the call ended: {words}" in done.stdout, done.stdout
    assert not any(wrong in done.stdout for wrong in MISREPORTS), done.stdout
    status, ended_by, detail = stored(home, monkeypatch, session_of(done.stdout))
    assert ended_by == "brain_closed" and status != "unfinished"
    assert detail.startswith(words) and "the sandbox closed the connection (code 10" in detail


@pytest.mark.slow
def test_a_brain_that_stops_answering_pings_is_reported_as_deaf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keepalive pings after PING_INTERVAL_S and gives up PING_TIMEOUT_S later (~40 s)."""
    home = tmp_path / "home"
    waiting = SCRIPT + f"[[step]]\nsilence_ms = {int((PING_INTERVAL_S + PING_TIMEOUT_S) * 2000)}\n"
    with raw_brain("deaf") as url:
        done = call(tmp_path, home, waiting, "--brain", url)
    words = f"the brain stopped answering pings: nothing came back within {PING_TIMEOUT_S:g} s"
    assert f"  the call ended: {words}" in done.stdout, done.stdout + done.stderr
    assert stored(home, monkeypatch, session_of(done.stdout))[2].startswith(words)


def test_a_brain_that_accepts_but_never_answers_a_ping_is_not_told_to_start_listening(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    with raw_brain("mute") as url:
        done = call(tmp_path, home, SCRIPT, "--brain", url)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "accepted the WebSocket but did not answer a ping within 5 s" in done.stdout
    assert not any(wrong in done.stdout for wrong in MISREPORTS), done.stdout
    status, ended_by, detail = stored(home, monkeypatch, session_of(done.stdout))
    assert (status, ended_by) == ("not_reached", "dial_failed") and "ping" in detail


def test_a_listener_that_never_answers_the_upgrade_is_not_told_to_start_listening(
    tmp_path: Path,
) -> None:
    with raw_brain("unanswered") as url:
        done = call(tmp_path, tmp_path / "home", SCRIPT, "--brain", url)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"the brain at {url} accepts connections, but no WebSocket session opened" in (
        done.stdout
    )
    assert not any(wrong in done.stdout for wrong in MISREPORTS), done.stdout


def test_a_redrive_whose_dial_fails_is_recorded_not_reached_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    first = call(tmp_path, home, SCRIPT)
    assert first.returncode == 0, first.stdout + first.stderr
    original = session_of(first.stdout)
    done = run(tmp_path, home, "replay", original, "--brain", "ws://127.0.0.1:1/brain")
    # Not re-driven is not a change (1): exit 3.
    assert done.returncode == 3 and "Traceback" not in done.stderr, done.stderr
    assert "could not reach the brain at ws://127.0.0.1:1/brain" in done.stderr
    assert "not_reached" in done.stderr  # the line names the session it recorded
    monkeypatch.setenv(HOME_ENV, str(home))
    with SessionStore() as store:
        (redrive,) = [row for row in store.sessions() if row.redrive_of == original]
    assert (redrive.status, redrive.ended_by) == ("not_reached", "dial_failed")
    assert (redrive.end_detail or "").startswith("could not reach the brain")
    assert redrive.id[:12] in done.stderr
