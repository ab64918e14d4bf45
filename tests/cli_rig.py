"""``sandbox`` as a user runs it, in its own process, for the tests that check what it prints."""

from __future__ import annotations

import os
import subprocess
import sys
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
