"""``sandbox run`` as its user runs it, in a terminal of its own, for timing from outside.

The app runs in a pseudo-terminal (the UI draws and redraws as it would on screen; its
output is read and dropped), on the virtual microphone and speaker, dialling a brain served
by this process (the fixed-reply brain unless told), which notes when each UserMessage
arrives.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.brains.fixed import FixedReply
from sandbox.errors import UserError
from sandbox.line.profile import DEFAULT_LINE
from sandbox.sdk import Brain, serve
from sandbox_bench import pulse
from sandbox_bench.child_memory import PeakWatch, reap

#: The terminal the app draws on.
COLUMNS, LINES = 120, 40
#: How long quitting may take before the app is stopped.
QUIT_S = 10.0


@dataclass
class Arrivals:
    """When the call began and each UserMessage reached the brain (monotonic seconds)."""

    started: float | None = None
    messages: list[tuple[float, str]] = field(default_factory=list)
    #: The app's peak resident memory over its whole run (MB), known once it has exited.
    peak_rss_mb: float | None = None

    def notify(self, kind: str, text: str) -> None:
        """The brain's hook (see :class:`~sandbox.brains.fixed.FixedReply`)."""
        if kind == "session_start":
            self.started = time.monotonic()
        else:
            self.messages.append((time.monotonic(), text))

    def first_after(self, t: float) -> tuple[float, str] | None:
        """The first UserMessage that arrived after ``t``."""
        return next(((at, text) for at, text in self.messages if at > t), None)


async def wait_started(arrivals: Arrivals, who: str, timeout_s: float) -> None:
    """Until the app has dialled the brain and the call began."""
    deadline = time.monotonic() + timeout_s
    while arrivals.started is None:
        if time.monotonic() > deadline:
            raise UserError(f"{who} did not dial the brain in {timeout_s:.0f} s")
        await asyncio.sleep(0.1)


def _drain(fd: int) -> None:
    """Read and drop the app's screen output until the terminal closes."""
    with contextlib.suppress(OSError):
        while os.read(fd, 65536):
            pass


#: A brain to serve, built per call with the hook that notes its arrivals.
BrainFactory = Callable[[Callable[[str, str], None]], Brain]


@contextlib.asynccontextmanager
async def running_app(
    patience: int,
    report: Path,
    line: str = DEFAULT_LINE,
    *,
    brain: BrainFactory = FixedReply,
    options: Sequence[str] = (),
) -> AsyncIterator[Arrivals]:
    """``brain`` (the fixed-reply brain) served here and ``sandbox run`` dialling it at
    ``patience``, the caller on ``line``, with ``options`` more (``--language de``)."""
    arrivals = Arrivals()
    server = await serve(lambda: brain(arrivals.notify))
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
    env = {
        **os.environ,
        **pulse.env(),
        "TERM": "xterm-256color",
        "COLUMNS": str(COLUMNS),
        "LINES": str(LINES),
    }
    command = [
        sys.executable, "-m", "sandbox.cli", "run",
        "--brain", f"ws://127.0.0.1:{server.port}/brain",
        "--patience", str(patience), "--idle-ms", "0", "--report", str(report),
        "--line", line, *options,
    ]  # fmt: skip
    app = subprocess.Popen(
        command, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
    )
    watch = PeakWatch(app.pid)
    os.close(slave)
    drain = threading.Thread(target=_drain, args=(master,), daemon=True)
    drain.start()
    try:
        yield arrivals
    finally:
        with contextlib.suppress(OSError):
            os.write(master, b"\x11")  # ctrl+q: the app ends the call and writes its report
        arrivals.peak_rss_mb = await reap(app, QUIT_S, watch)
        os.close(master)
        await server.close()
