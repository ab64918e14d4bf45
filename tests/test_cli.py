"""The command line: help, and no traceback ever reaches the user."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sandbox.wire.tokens import HOME_ENV


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


def test_bad_values_are_words_not_tracebacks(tmp_path: Path) -> None:
    script = tmp_path / "s.toml"
    script.write_text('[[step]]\nsay = "hi"\n')
    for args in (
        ("call", "--script", str(script), "--patience", "11"),
        ("call", "--script", str(script), "--voice", "nobody"),
        ("call", "--script", str(script), "--init", "[1, 2]"),
        ("call", "--script", str(script), "--speaker", "none"),
        ("call", "--script", str(tmp_path / "missing.toml")),
    ):
        result = _run(tmp_path, *args)
        assert result.returncode == 1, (args, result.stderr)
        assert "Traceback" not in result.stderr and result.stderr.startswith("sandbox call: ")


def test_log_lines_go_to_the_log_file_not_the_terminal(tmp_path: Path) -> None:
    script = tmp_path / "s.toml"
    script.write_text('ms_per_word = 20\n[[step]]\nsay = "what are your hours"\n')
    result = _run(tmp_path, "call", "--script", str(script), "--idle-ms", "0")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert (tmp_path / "logs" / "sandbox.log").exists()
