"""Files a command writes where its command line says: never over a file already there
unless told to (``--force``), and never through a symbolic link into wherever it points
(written whole beside it, then renamed onto it: :mod:`sandbox.private_files`)."""

from __future__ import annotations

import os
from pathlib import Path

from sandbox.errors import UserError
from sandbox.private_files import write_file

FORCE_HELP = "overwrite files that are already there"


def clear_the_way(files: list[Path], *, force: bool) -> None:
    """Refuse before any work starts if a file to write is there (or a folder is), unless
    ``force``, or if it could not go where it is named (under a file, a dangling link or a
    folder the user cannot write in); with ``force`` a symbolic link is removed so the link
    itself is replaced."""
    for path in files:
        _room_for(path)
    taken = [path for path in files if path.exists() or path.is_symlink()]
    folders = [path for path in taken if path.is_dir() and not path.is_symlink()]
    if folders:
        raise UserError(f"{folders[0]} is a folder: name the file to write")
    if taken and not force:
        names = ", ".join(str(path) for path in taken)
        raise UserError(f"{names} already there: pass --force to overwrite, or name another file")
    for path in taken:
        if path.is_symlink():
            path.unlink()


def _room_for(path: Path) -> None:
    """Refuse ``path`` if its nearest folder on disk is not one the user can write in."""
    nearest = next(p for p in path.parents if p.exists() or p.is_symlink())
    if not nearest.is_dir():
        raise UserError(f"{nearest} is not a folder: {path} cannot be written under it")
    if not os.access(nearest, os.W_OK | os.X_OK):
        raise UserError(f"{path} cannot be written: {nearest} is not a folder you can write in")


def write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) whole or not at all, making missing folders; a link put at
    ``path`` since :func:`clear_the_way` is replaced, never written through; a failure is a
    UserError in words."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_file(path, text)
    except OSError as exc:
        raise UserError(f"could not write {path}: {exc.strerror or exc}") from None
