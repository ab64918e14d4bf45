"""This checkout's files as a clone has them, for tests that install or build from it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def tracked_files() -> list[str]:
    """The files git tracks or would (ignored ones left out), relative to the checkout."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO, capture_output=True, text=True, check=True,
    )  # fmt: skip
    # A file deleted but not yet committed is not there.
    return [name for name in filter(None, listed.stdout.split("\0")) if (REPO / name).is_file()]


def copy_checkout(target: Path) -> Path:
    """A copy of :func:`tracked_files` in ``target``: a build there leaves nothing here."""
    for name in tracked_files():
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target / name)
    return target
