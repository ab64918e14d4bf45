"""Every file the sandbox writes goes through one helper (``sandbox.private_files.NewFile``):
a temporary created exclusively beside the target, written, fsynced and renamed onto it. A
link planted at the old fixed ``.tmp`` name, at a temporary's name or at the target while
a command runs is never written through: the file it points to stays as it was."""

from __future__ import annotations

import ast
import json
import os
import sqlite3
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import numpy as np
import pytest
from checkout import package_files
from waiting import until

from sandbox.audio.sinks import WavSink
from sandbox.commands import sessions as sessions_command
from sandbox.commands import written
from sandbox.load.echo_process import echo_brain
from sandbox.paths import HOME_ENV
from sandbox.private_files import PRIVATE_MODE, NewFile, write_file
from sandbox.record.legs import AudioLeg
from sandbox.record.store import SessionStore
from sandbox.record.stored_call import StoredCall

SECRET = "what another file held\n"
#: A call that lasts a moment: the greeting, a line, a second of silence, a hang-up.
SHORT_CALL = '[[step]]\nsay = "Hello there"\n[[step]]\nsilence_ms = 1500\n[[step]]\nend = true\n'


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A file outside anything the sandbox is asked to write, that a link points at."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    path = outside / "victim.txt"
    path.write_text(SECRET)
    return path


def _spawn(home: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "sandbox.cli", *args],
        env={**os.environ, HOME_ENV: str(home)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _a_session_started(home: Path) -> bool:
    path = home / "sessions.db"
    if not path.exists():
        return False
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            return bool(db.execute("SELECT 1 FROM sessions").fetchall())
        finally:
            db.close()
    except sqlite3.OperationalError:
        return False


def _untouched(victim: Path) -> None:
    assert victim.read_text() == SECRET
    assert sorted(p.name for p in victim.parent.iterdir()) == ["victim.txt"]


# ------------------------------------------------------------- through the CLI


def test_call_report_is_never_written_through_a_link(
    home: Path, tmp_path: Path, victim: Path
) -> None:
    script = tmp_path / "caller.toml"
    script.write_text(SHORT_CALL)
    report = tmp_path / "r.json"
    (tmp_path / "r.json.tmp").symlink_to(victim)  # the name the report used to go through
    call = _spawn(
        home, "call", "--script", str(script), "--ms-per-word", "30", "--report", str(report)
    )
    until(lambda: _a_session_started(home), "the call to start")
    report.symlink_to(victim)  # and one at the target itself, while the call runs
    out, err = call.communicate(timeout=120)
    assert call.returncode == 0, err
    assert f"report: {report}" in out
    assert not report.is_symlink() and json.loads(report.read_text())["caller_turns"] == [
        "Hello there"
    ]
    assert os.stat(report).st_mode & 0o777 == PRIVATE_MODE  # what the caller said
    _untouched(victim)
    assert [p.name for p in tmp_path.glob(".r.json.*")] == []  # no temporary left behind


def test_load_json_is_never_written_through_a_link_planted_during_the_run(
    home: Path, tmp_path: Path, victim: Path
) -> None:
    out = tmp_path / "load.json"
    script = tmp_path / "caller.toml"
    script.write_text("ms_per_word = 30\n" + SHORT_CALL)
    with echo_brain() as url:
        run = _spawn(
            home, "load", "--brain", url, "--script", str(script), "--calls", "2",
            "--realtime", "--json", str(out),
        )  # fmt: skip
        until(lambda: _a_session_started(home), "the run to start")  # past its check
        out.symlink_to(victim)
        printed, err = run.communicate(timeout=180)
    assert run.returncode == 0, printed + err
    assert not out.is_symlink() and json.loads(out.read_text())["calls"] == 2
    _untouched(victim)


def test_an_export_replaces_a_link_planted_after_its_check(
    home: Path, tmp_path: Path, victim: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "caller.toml"
    script.write_text("[[step]]\nend = true\n")
    done = _spawn(home, "call", "--script", str(script), "--ms-per-word", "20")
    assert done.wait(120) == 0
    targets = {name: tmp_path / f"call.{name}" for name in ("html", "md", "json")}
    checked = written.clear_the_way

    def then_planted(files: list[Path], *, force: bool) -> None:
        checked(files, force=force)
        for path in files:  # between the check and the write
            path.symlink_to(victim)

    monkeypatch.setattr(sessions_command, "clear_the_way", then_planted)
    with SessionStore() as store:
        row = store.sessions()[0]
        args = Namespace(id=row.id, wav=None, force=False, **targets)
        sessions_command.export_session(StoredCall.load(store, row), args)
    for path in targets.values():
        assert not path.is_symlink() and path.stat().st_size > 0
    _untouched(victim)


# ----------------------------------------------------------------- the helper


def test_a_link_at_a_temporary_name_is_never_written_through(
    tmp_path: Path, victim: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = iter(["planted", "planted", "free"])
    monkeypatch.setattr("sandbox.private_files.secrets.token_hex", lambda _n: next(names))
    target = tmp_path / "out.json"
    (tmp_path / ".out.json.planted.tmp").symlink_to(victim)
    write_file(target, "{}")
    assert target.read_text() == "{}"
    assert (tmp_path / ".out.json.planted.tmp").is_symlink()  # left alone, not followed
    _untouched(victim)


def test_a_file_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("before")
    with pytest.raises(RuntimeError), NewFile(target) as out:
        out.write(b"half of it")
        raise RuntimeError("the writer failed midway")
    assert target.read_text() == "before"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]
    kept = NewFile(target, mode=PRIVATE_MODE)
    kept.file.write(b"late")
    assert not kept.publish(replace=False)  # never takes the place of a file already there
    assert target.read_text() == "before"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_a_full_disk_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("before")
    new = NewFile(target)
    new.file.write(b"x" * 100)  # still in the buffer: the flush meets the full disk
    full = os.open("/dev/full", os.O_WRONLY)
    try:
        os.dup2(full, new.file.fileno())
        with pytest.raises(OSError, match="No space left"):
            new.publish()
    finally:
        os.close(full)
    assert target.read_text() == "before"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_the_speaker_wav_replaces_a_link_at_its_target(tmp_path: Path, victim: Path) -> None:
    target = tmp_path / "bot.wav"
    target.symlink_to(victim)
    sink = WavSink(target, 16_000)
    sink.write(np.zeros(1600, dtype=np.float32))
    sink.close()
    assert not target.is_symlink() and target.stat().st_size == 44 + 3200
    _untouched(victim)


def test_an_audio_leg_refuses_a_file_or_link_already_at_its_path(
    tmp_path: Path, victim: Path
) -> None:
    leg = tmp_path / "audio" / "mic.wav"
    leg.parent.mkdir()
    leg.symlink_to(victim)
    with pytest.raises(FileExistsError):
        AudioLeg(leg, 16_000)
    _untouched(victim)


def test_one_helper_writes_every_file() -> None:
    """No module of the package writes a file but through :mod:`sandbox.private_files`:
    no ``write_text``/``write_bytes``, no ``open`` for writing, no rename of its own, no
    ``wave.open`` on a path, no ``os.open`` creating a file that could be a link (streams
    written in place, the audio legs and a lock, are created ``O_NOFOLLOW``)."""
    allowed = {
        "private_files.py",
        "logs.py",  # the log file handler: appended to while the app runs
        "bench/pulse.py",  # a lock file in /tmp, opened and never written
        "bench/hostile.py",  # a caller script in the bench's own private temporary folder
    }
    found = []
    for where, path in package_files():
        if where in allowed or where.startswith("fuzz/"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and _writes(node):
                found.append(f"{where}:{node.lineno} {ast.unparse(node)[:60]}")
    assert found == [], found


def _writes(call: ast.Call) -> bool:
    """Whether a call writes a file by a way of its own."""
    func = call.func
    method = isinstance(func, ast.Attribute)
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    owner = getattr(func.value, "id", "") if isinstance(func, ast.Attribute) else ""
    if (method and name in ("write_text", "write_bytes")) or name in ("mkstemp", "mktemp"):
        return True
    if owner == "os" and name in ("replace", "rename"):
        return True
    if name != "open":
        return False
    if owner == "os":
        flags = ast.unparse(call)
        return "O_CREAT" in flags and "O_NOFOLLOW" not in flags
    at = 0 if method and owner != "wave" else 1  # Path.open(mode) / open(path, mode)
    modes = [*call.args[at : at + 1], *(k.value for k in call.keywords if k.arg == "mode")]
    writing = any(isinstance(m, ast.Constant) and set(str(m.value)) & set("wax+") for m in modes)
    if owner == "wave":
        return writing and isinstance(call.args[0], ast.Call)  # a path, not an open file
    return writing
