"""The command line: help, and no traceback ever reaches the user."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.cli import main
from sandbox.logs import log_path
from sandbox.paths import HOME_ENV


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, HOME_ENV: str(tmp_path)}
    return subprocess.run(
        [sys.executable, "-m", "sandbox.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_help_lists_every_command(tmp_path: Path) -> None:
    result = _run(tmp_path, "--help")
    for name in ("run", "call", "check", "brain", "keys", "devices", "bench"):
        assert name in result.stdout
    # Where sessions are saved, before any call has ended.
    assert str(tmp_path / "sessions.db") in "".join(result.stdout.split())  # however wrapped


def test_bad_values_are_words_not_tracebacks(tmp_path: Path) -> None:
    script = tmp_path / "s.toml"
    script.write_text('[[step]]\nsay = "hi"\n')
    for option, value in (  # each refused where it is parsed: a usage error
        ("--patience", "11"),
        ("--idle-ms", "5"),
        ("--voice", "nobody"),
        ("--init", "[1, 2]"),
    ):
        result = _run(tmp_path, "call", "--script", str(script), option, value)
        assert result.returncode == 2, (option, result.stderr)
        assert "Traceback" not in result.stderr
        last = result.stderr.splitlines()[-1]
        assert last.startswith(f"sandbox call: error: argument {option}: ")
    for args in (  # right alone, wrong together (no --speaker in sim) or not there
        ("--script", str(script), "--speaker", "none"),
        ("--script", str(tmp_path / "missing.toml")),
    ):
        result = _run(tmp_path, "call", *args)
        assert result.returncode == 1, (args, result.stderr)
        assert "Traceback" not in result.stderr and result.stderr.startswith("sandbox call: ")


def test_log_lines_go_to_the_log_file_not_the_terminal(tmp_path: Path) -> None:
    script = tmp_path / "s.toml"
    script.write_text('ms_per_word = 20\n[[step]]\nsay = "what are your hours"\n')
    result = _run(tmp_path, "call", "--script", str(script), "--idle-ms", "0")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert (tmp_path / "logs" / "sandbox.log").exists()


def test_starting_settings_meet_the_mid_call_checks_in_the_same_words(tmp_path: Path) -> None:
    """The wire contract: the Config shape is used twice; at connect a bad one means the call
    never starts, refused in the words a Request would get."""
    script = tmp_path / "s.toml"
    script.write_text('[[step]]\nsay = "hi"\n')
    result = _run(tmp_path, "call", "--script", str(script), "--voice", "joe", "--language", "de")
    assert result.returncode == 1
    assert "voice joe does not speak de; it speaks: en; de is spoken by:" in result.stderr
    result = _run(tmp_path, "call", "--script", str(script), "--voice", "thorsten")
    assert "voice thorsten is not installed here" in result.stderr
    result = _run(tmp_path, "call", "--script", str(script), "--hear-language", "xx")
    assert "--hear-language: unknown language 'xx'" in result.stderr
    assert not list(tmp_path.glob("sessions/*.json"))  # refused before anything was dialed


def test_a_call_can_start_heard_in_one_language_and_spoken_in_another(tmp_path: Path) -> None:
    script = tmp_path / "s.toml"
    script.write_text('ms_per_word = 20\n[[step]]\nsay = "hallo"\n')
    report = tmp_path / "r.json"
    args = ("--hear-language", "de", "--speak-language", "en", "--idle-ms", "0")
    result = _run(tmp_path, "call", "--script", str(script), *args, "--report", str(report))
    assert result.returncode == 0, result.stderr
    assert "hear de" in json.loads(report.read_text())["settings"]


def test_a_command_run_in_process_logs_to_the_file_and_leaves_no_handler_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test or a script that calls ``main`` keeps its logging as it was: a handler left
    on a disk that later fills made every later log line in that process a printed error."""
    monkeypatch.setenv(HOME_ENV, str(tmp_path))
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    assert main(["sessions", "show", "nosuchid"]) == 1  # a command that logs and fails in words
    assert root.handlers == handlers and root.level == level
    logging.getLogger("sandbox").warning("after the command")
    assert log_path().is_file()
    assert "after the command" not in log_path().read_text()
