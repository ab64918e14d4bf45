"""``sandbox call --report FILE`` is checked before the brain is dialed, as ``export`` and
``load`` check theirs: a folder, a file under a file, an existing file or a link is refused
in words, with nothing dialed or recorded; ``--force`` overwrites a file, and replaces a link
itself, never writing through it. ``sandbox test``'s files are checked before it runs too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_rig import sandbox_cli

#: A brain nothing listens at: had the call been dialed, it would say so (and record it).
NOWHERE = "ws://127.0.0.1:9/brain"
SCRIPT = 'ms_per_word = 5\n[[step]]\nsay = "Hello there"\n'


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "call.toml"
    path.write_text(SCRIPT)
    return path


def _refused(home: Path, script: Path, report: Path, says: str) -> None:
    args = ["--script", str(script), "--brain", NOWHERE, "--report", str(report)]
    done = sandbox_cli(home, "call", *args)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr == f"sandbox call: {says}\n" and done.stdout == ""
    assert not (home / "sessions.db").exists()  # refused before anything was dialed


def test_a_folder_is_refused_before_dialing(tmp_path: Path, script: Path) -> None:
    _refused(tmp_path / "home", script, tmp_path, f"{tmp_path} is a folder: name the file to write")


def test_a_report_under_a_file_is_refused_before_dialing(tmp_path: Path, script: Path) -> None:
    report = script / "report.json"
    _refused(
        tmp_path / "home",
        script,
        report,
        f"{script} is not a folder: {report} cannot be written under it",
    )


def test_an_existing_file_is_kept_unless_forced(tmp_path: Path, script: Path) -> None:
    home, report = tmp_path / "home", tmp_path / "report.json"
    report.write_text("mine")
    says = f"{report} already there: pass --force to overwrite, or name another file"
    _refused(home, script, report, says)
    assert report.read_text() == "mine"
    done = sandbox_cli(home, "call", "--script", str(script), "--report", str(report), "--force")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(report.read_text())["caller_turns"] == ["Hello there"]


def test_a_link_is_refused_and_forced_replaced_not_followed(tmp_path: Path, script: Path) -> None:
    home, report, victim = tmp_path / "home", tmp_path / "report.json", tmp_path / "victim.txt"
    victim.write_text("secret")
    report.symlink_to(victim)
    _refused(
        home,
        script,
        report,
        f"{report} already there: pass --force to overwrite, or name another file",
    )
    done = sandbox_cli(home, "call", "--script", str(script), "--report", str(report), "--force")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not report.is_symlink() and json.loads(report.read_text())["caller_turns"] == [
        "Hello there"
    ]
    assert victim.read_text() == "secret"


def test_sandbox_test_refuses_a_folder_for_its_junit_file_before_running(tmp_path: Path) -> None:
    """``sandbox test`` overwrites its CI files each run, but a folder named as one is
    refused before any script runs (it once ran them all, then stopped with exit 70)."""
    script = tmp_path / "test_hi.toml"
    script.write_text(SCRIPT)
    home = tmp_path / "home"
    done = sandbox_cli(home, "test", str(script), "--brain", NOWHERE, "--junit", str(tmp_path))
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr == f"sandbox test: {tmp_path} is a folder: name the file to write\n"
    assert done.stdout == "" and not (home / "sessions.db").exists()


def test_the_apps_report_file_is_checked_before_the_app_opens(tmp_path: Path) -> None:
    """``sandbox run --report FILE`` overwrote an existing file when the app closed; it is
    refused as ``call`` refuses it, before the app (or a brain) starts."""
    home, report = tmp_path / "home", tmp_path / "report.json"
    report.write_text("mine")
    done = sandbox_cli(home, "run", "--typed", "--brain", NOWHERE, "--report", str(report))
    assert done.returncode == 1, done.stdout + done.stderr
    says = f"{report} already there: pass --force to overwrite, or name another file"
    assert done.stderr == f"sandbox run: {says}\n"
    assert report.read_text() == "mine" and not (home / "sessions.db").exists()
