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


#: The folders of the project's code, each with the prefix its modules are named by in the
#: layer map and the scans: ``sandbox`` is one package in two folders, the app's and the
#: SDK's (``call/core.py``, ``sdk/events.py``), and the bench's distribution holds two
#: packages, named by their layers (``bench/report.py``, ``fuzz/targets.py``).
PACKAGE_FOLDERS = (
    ("", REPO / "sandbox"),
    ("", REPO / "sdk" / "sandbox"),
    ("bench/", REPO / "bench" / "sandbox_bench"),
    ("fuzz/", REPO / "bench" / "sandbox_fuzz"),
)


def package_files() -> list[tuple[str, Path]]:
    """Every Python file of the project's packages, sorted by its name in the layer map's
    terms (see :data:`PACKAGE_FOLDERS`), with its path."""
    return sorted(
        (prefix + path.relative_to(folder).as_posix(), path)
        for prefix, folder in PACKAGE_FOLDERS
        for path in folder.rglob("*.py")
    )
