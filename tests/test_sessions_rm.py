"""``sandbox sessions rm`` and ``prune`` remove a session whole, through the CLI: its row,
its frames and events, and its audio legs (the caller's recorded voice), saying how many
bytes were freed; a call still in progress is refused in words, a crashed one is not."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from waiting import until

from sandbox.paths import HOME_ENV

GREETING_ONLY = "[[step]]\nend = true\n"
LONG_SILENCE = '[[step]]\nsay = "What are your opening hours?"\n[[step]]\nsilence_ms = 60000\n'


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sandbox.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, HOME_ENV: str(home)},
        timeout=180,
    )


def _spawn(home: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "sandbox.cli", *args],
        env={**os.environ, HOME_ENV: str(home)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _rows(home: Path, sql: str) -> list[tuple[Any, ...]]:
    path = home / "sessions.db"
    if not path.exists():
        return []
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            return db.execute(sql).fetchall()
        finally:
            db.close()
    except sqlite3.OperationalError:
        return []


def _only_session(home: Path) -> str:
    (row,) = _rows(home, "SELECT id FROM sessions")
    return str(row[0])


def _legs_bytes(home: Path, session_id: str) -> int:
    folder = home / "audio" / session_id
    return sum(leg.stat().st_size for leg in folder.iterdir())


def _legs_hold_audio(home: Path) -> bool:
    folder = home / "audio"
    legs = [leg for session in folder.glob("*") for leg in session.glob("*.wav")]
    return len(legs) == 2 and all(leg.stat().st_size > 44 for leg in legs)


def test_a_call_in_progress_is_refused_and_once_killed_is_removed(
    home: Path, tmp_path: Path
) -> None:
    script = tmp_path / "long.toml"
    script.write_text(LONG_SILENCE)
    call = _spawn(home, "call", "--script", str(script), "--idle-ms", "0")
    try:
        sid = str(until(lambda: _rows(home, "SELECT id FROM sessions"), "the call's row", 90)[0][0])
        refused = _cli(home, "sessions", "rm", sid[:8])
        assert refused.returncode == 1 and "Traceback" not in refused.stderr
        assert f"session {sid[:12]} is a call still in progress" in refused.stderr
        assert "hang it up first" in refused.stderr
        kept = _cli(home, "sessions", "prune", "--older-than", "0s")
        assert kept.stdout.startswith("removed 0 sessions"), kept.stdout
        assert f"kept {sid}: its call is still in progress" in kept.stdout
    finally:
        call.send_signal(signal.SIGKILL)
        call.wait(30)
    # Killed, it is no call in progress any more: it goes, with the lock it left behind.
    assert (home / "running" / f"{sid}.lock").exists()
    removed = _cli(home, "sessions", "rm", sid[:8])
    assert removed.returncode == 0, removed.stderr
    assert removed.stdout.startswith(f"removed session {sid}: no audio; ")
    assert "bytes of frames and events freed in the store" in removed.stdout
    assert not (home / "running" / f"{sid}.lock").exists()
    assert _rows(home, "SELECT id FROM sessions") == []
    assert _rows(home, "SELECT count(*) FROM events") == [(0,)]


@pytest.mark.audio
def test_rm_and_prune_remove_the_audio_legs_and_say_how_many_bytes(
    home: Path, tmp_path: Path
) -> None:
    script = tmp_path / "greeting.toml"
    script.write_text(GREETING_ONLY)
    real = ["call", "--audio", "real", "--speaker", "none", "--script", str(script)]
    # One call killed mid-greeting (its legs written to the kill), removed by rm.
    call = _spawn(home, *real, "--idle-ms", "0")
    try:
        # Legs are written in quarter-second batches: wait for audio in both, not a word.
        until(lambda: _legs_hold_audio(home), "the greeting's audio in both legs", 90)
    finally:
        call.send_signal(signal.SIGKILL)
        call.wait(30)
    killed = _only_session(home)
    legs = _legs_bytes(home, killed)
    assert legs > 2 * 44  # both legs hold audio beyond their headers
    removed = _cli(home, "sessions", "rm", killed[:8])
    assert removed.returncode == 0, removed.stderr
    assert f"removed session {killed}: {legs:,} bytes of audio freed; " in removed.stdout
    assert not (home / "audio" / killed).exists()
    # One call that ended, removed by prune.
    done = _cli(home, *real, "--idle-ms", "0")
    assert done.returncode == 0, done.stderr
    ended = _only_session(home)
    legs = _legs_bytes(home, ended)
    pruned = _cli(home, "sessions", "prune", "--older-than", "0s")
    assert pruned.stdout.startswith(f"removed 1 session: {legs:,} bytes of audio freed; ")
    assert not (home / "audio" / ended).exists()
    assert list((home / "audio").iterdir()) == []
    assert "no sessions yet" in _cli(home, "sessions", "list").stdout
