"""``sandbox brain`` as an author runs it: its own process, started in their folder.

``python -P`` runs the CLI the way the installed ``sandbox`` script does, without the
current directory on the import path (``python -m`` would add it and hide the very bug of
a module next to you that cannot be found).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sandbox.load.echo_process import free_port as free_port  # for the tests that use it
from sandbox.load.echo_process import wait_listening
from sandbox.paths import HOME_ENV


def sandbox_command(*args: str) -> list[str]:
    """The command line of ``sandbox ARGS…`` (this checkout's package, no cwd on the path)."""
    return [sys.executable, "-P", "-m", "sandbox.cli", *args]


def sandbox_env(home: Path) -> dict[str, str]:
    """The environment of a sandbox process whose keys and sessions live in ``home``."""
    return {**os.environ, HOME_ENV: str(home)}


@contextmanager
def serving(folder: Path, home: Path, *args: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``sandbox brain ARGS… --port N`` started in ``folder``; yields its URL and process
    once it listens, and stops it (SIGTERM) after."""
    port = free_port()
    proc = subprocess.Popen(
        sandbox_command("brain", *args, "--port", str(port)),
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=sandbox_env(home),
    )
    try:
        if not wait_listening(proc, port, 20):
            out, err = proc.communicate(timeout=10)
            raise AssertionError(f"sandbox brain {' '.join(args)} did not listen:\n{out}{err}")
        yield f"ws://127.0.0.1:{port}/brain", proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(10)


def run(folder: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``sandbox ARGS…`` run to its end in ``folder``."""
    return subprocess.run(
        sandbox_command(*args),
        cwd=folder,
        capture_output=True,
        text=True,
        env=sandbox_env(home),
        timeout=120,
    )


def call(folder: Path, home: Path, script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``sandbox call --script S ARGS…`` with ``script`` written into ``folder``."""
    path = folder / "call.toml"
    path.write_text(script)
    return run(folder, home, "call", "--script", str(path), *args)


def reported_call(
    folder: Path, home: Path, script: str, *args: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """``sandbox call`` with ``script`` run to its report (``report.json`` in ``folder``):
    the finished process, never with a traceback, and the report it wrote."""
    path = folder / "report.json"
    done = call(folder, home, script, "--report", str(path), *args)
    assert "Traceback" not in done.stderr, done.stderr
    assert f"report: {path}" in done.stdout, done.stdout + done.stderr
    report: dict[str, Any] = json.loads(path.read_text())
    return done, report
