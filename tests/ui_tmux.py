"""``sandbox run`` in a real terminal: tmux on a server of the test's own, read as text."""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WIDTH, HEIGHT = 160, 45
#: ``sandbox`` as the tests start it: this Python, the checkout's package.
SANDBOX = (sys.executable, "-m", "sandbox.cli")


class Terminal:
    """One tmux window running a command."""

    def __init__(self, socket: str, session: str) -> None:
        self.socket = socket
        self.session = session

    def tmux(self, *args: str) -> str:
        """Run a tmux command on this terminal's server."""
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True
        )
        return done.stdout

    def screen(self) -> str:
        """What the window shows now."""
        return self.tmux("capture-pane", "-p", "-t", self.session)

    def keys(self, *keys: str) -> None:
        """Type keys (tmux names: ``Enter``, ``C-q``, ``F2``) or text."""
        self.tmux("send-keys", "-t", self.session, *keys)

    def app_pid(self) -> int:
        """The process id of the command the window runs (the shell's one child)."""
        shell = self.tmux("display-message", "-p", "-t", self.session, "#{pane_pid}").strip()
        children = Path(f"/proc/{shell}/task/{shell}/children").read_text().split()
        if len(children) != 1:
            raise AssertionError(f"expected the app as the shell's one child, got {children}")
        return int(children[0])

    def wait_for(self, ready: Callable[[str], bool], what: str, timeout_s: float = 30) -> str:
        """The screen once ``ready(screen)`` holds; fails showing the screen otherwise."""
        deadline = time.monotonic() + timeout_s
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if ready(screen):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {what}; the screen was:\n{screen}")


def sandbox_run(
    args: list[str], env: Mapping[str, str]
) -> contextlib.AbstractContextManager[Terminal]:
    """``sandbox run ARGS`` in a fresh tmux server; prints ``EXIT=<code>`` when it ends."""
    return sandbox_in_tmux(["run", *args], env)


@contextlib.contextmanager
def sandbox_in_tmux(
    args: list[str], env: Mapping[str, str], program: Sequence[str] = SANDBOX
) -> Iterator[Terminal]:
    """``sandbox ARGS`` in a fresh tmux server; prints ``EXIT=<code>`` when it ends.
    ``program``: how sandbox is started (default: this Python's, from the checkout)."""
    socket = f"sandbox-test-{os.getpid()}-{time.monotonic_ns()}"
    # COLUMNS and LINES as the window is: inherited ones (80x24) would shrink the app.
    variables = {**env, "COLUMNS": str(WIDTH), "LINES": str(HEIGHT)}
    assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in variables.items())
    run = " ".join(shlex.quote(a) for a in [*program, *args])
    command = f"env {assignments} {run}; echo EXIT=$?; sleep 60"
    terminal = Terminal(socket, "sandbox")
    terminal.tmux(
        "new-session", "-d", "-s", terminal.session, "-x", str(WIDTH), "-y", str(HEIGHT),
        "-c", str(REPO), command,
    )  # fmt: skip
    try:
        yield terminal
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], check=False)
