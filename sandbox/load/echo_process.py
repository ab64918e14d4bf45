"""A built-in brain in a process of its own (the echo brain, by default), so a measured
run's own process holds only the runtime's side and the brain does not share its event
loop; and waiting for a freshly started server to listen."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

from sandbox.errors import UserError

#: How long a brain process may take to start listening.
LISTEN_WAIT_S = 30.0


def free_port() -> int:
    """A loopback port nothing listens on (now)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(proc: subprocess.Popen[str], port: int, timeout_s: float) -> bool:
    """Wait until something listens on loopback ``port``; False if ``proc`` ended first or
    the time ran out."""
    deadline = time.monotonic() + timeout_s
    while proc.poll() is None and time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.05)
    return False


@contextlib.contextmanager
def echo_brain() -> Iterator[str]:
    """``sandbox brain echo`` on a free loopback port; see :func:`brain_process`."""
    with brain_process("echo") as url:
        yield url


@contextlib.contextmanager
def brain_process(name: str, path: str = "/brain") -> Iterator[str]:
    """``sandbox brain NAME`` on a free loopback port (its log discarded: a pipe nobody
    reads would fill and stall it); yields its URL (at ``path``) once it listens, stops it
    after."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sandbox.cli", "brain", name, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        if not wait_listening(proc, port, LISTEN_WAIT_S):
            raise UserError(
                f"the {name} brain did not start listening; `sandbox brain {name}` says why"
            )
        yield f"ws://127.0.0.1:{port}{path}"
    finally:
        proc.terminate()
        proc.wait(10)
