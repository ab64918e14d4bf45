"""Where a session's audio legs live on disk, and removing them: apart from the legs'
writing and reading (:mod:`sandbox.record.legs`), so that the store, which removes a
session's legs with its rows, loads no audio library.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from sandbox.paths import data_dir


def legs_dir(session_id: str) -> Path:
    """Where a session's audio legs live."""
    return data_dir() / "audio" / session_id


def leg_path(session_id: str, leg: str) -> Path:
    """One leg's WAV file (``mic`` or ``speaker``)."""
    return legs_dir(session_id) / f"{leg}.wav"


def plain_id(session_id: str) -> bool:
    """Whether a session id can name a file of its own: a damaged row's (empty, or a path
    such as ``../x``) names none."""
    return session_id not in ("", ".", "..") and Path(session_id).name == session_id


def remove_legs(session_id: str) -> int:
    """Delete a session's audio legs and their folder; the bytes freed (0 when it has none).
    Links inside are removed, never followed."""
    if not plain_id(session_id):
        return 0
    folder = legs_dir(session_id)
    if folder.is_symlink():
        folder.unlink()
        return 0
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return 0
    freed = sum(
        e.stat(follow_symlinks=False).st_size for e in entries if e.is_file(follow_symlinks=False)
    )
    shutil.rmtree(folder)
    return freed
