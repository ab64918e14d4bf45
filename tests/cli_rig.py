"""``sandbox`` as a user runs it, in its own process, for the tests that check what it prints."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from sandbox.paths import HOME_ENV


def sandbox_cli(home: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``sandbox ARGS`` with ``home`` as its data directory; its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "sandbox.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, HOME_ENV: str(home)},
        timeout=timeout,
    )


@dataclass(frozen=True)
class SignalledCall:
    """A ``sandbox call`` hung up on by SIGTERM while it ran: how it exited, how long after the
    signal, and what it printed."""

    returncode: int
    exited_s: float
    stdout: str
    stderr: str


def call_hung_up_after(
    home: Path, brain_url: str, script: Path, report: Path, seconds: float
) -> SignalledCall:
    """``sandbox call --audio sim`` against ``brain_url``, played from ``script``, its report
    to ``report``, ``home`` its data directory; SIGTERM ``seconds`` after it started (it
    must still be running then)."""
    command = ("call", "--audio", "sim", "--brain", brain_url, "--script", str(script))
    call = subprocess.Popen(
        [sys.executable, "-m", "sandbox.cli", *command, "--report", str(report)],
        env={**os.environ, HOME_ENV: str(home)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(seconds)
    assert call.poll() is None, "the call ended before the hang-up"
    hung_up = time.monotonic()
    call.send_signal(signal.SIGTERM)
    out, err = call.communicate(timeout=60)
    return SignalledCall(call.returncode, time.monotonic() - hung_up, out, err)
