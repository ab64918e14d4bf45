"""What counts as an escape, and the time limit that turns a hang into one."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType

from sandbox.check.rules import Rule

#: One input taking longer than this is a hang.
HANG_S = 5.0


class InvariantBroken(AssertionError):
    """A target's invariant failed on an input; the message names the rule and the case."""

    def __init__(self, rule: Rule | str, detail: str) -> None:
        said = rule if isinstance(rule, str) else f"{rule.words} ({rule.cite()})"
        super().__init__(f"{detail} — breaks: {said}")


class Hang(Exception):
    """One input ran past :data:`HANG_S`."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`Hang` in the block after ``seconds`` (main thread only: elsewhere a
    signal cannot reach it, and the block runs unlimited)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _expired(_signum: int, _frame: FrameType | None) -> None:
        raise Hang(f"one input ran for more than {seconds:g} s")

    before = signal.signal(signal.SIGALRM, _expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


def guarded(target: Callable[[bytes], None], data: bytes, seconds: float = HANG_S) -> None:
    """Run one input through ``target``; whatever escapes (a hang included) propagates."""
    with time_limit(seconds):
        target(data)
