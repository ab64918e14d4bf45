"""A disk that fills: a small tmpfs (mounting needs root, as CI has; elsewhere the test that
asks for one is skipped, saying why)."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def mounted(folder: Path, size: str = "1m") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted on ``folder`` (created) until the block ends."""
    folder.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path, name: str = "filler") -> Path:
    """Write zeros into ``folder/name`` until the disk is full; returns the file."""
    filler = folder / name
    try:
        with filler.open("wb", buffering=0) as out:
            while True:
                out.write(b"\0" * 4096)
    except OSError:
        pass  # full, as wanted
    return filler
