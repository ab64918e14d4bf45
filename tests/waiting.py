"""Waiting on the wall clock for something another process does, in the tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def until(check: Callable[[], Any], what: str, timeout_s: float = 60, poll_s: float = 0.05) -> Any:
    """``check()``'s first truthy value; AssertionError naming ``what`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while not (found := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(poll_s)
    return found
