"""Files only the user can read, and how every file the sandbox writes is written.

Everything the sandbox keeps in its data folder is created private (folders 0700, files
0600) from the first byte, never tightened afterwards, so no other user can ever read it.
So is every file a command writes where it is told (a call's report, an export of it as
JSON, Markdown, a page or WAV, a test run's JUnit and JSON, a speaker's WAV): each holds
what a caller said, so it is 0600 whatever the umask; the user shares one by widening it
(``chmod a+r page.html``). The public key is the one file written to be shared (0644).

A file is written whole or not at all (:class:`NewFile`): into a temporary created
exclusively, under a random name, in the target's own folder (``O_CREAT | O_EXCL |
O_NOFOLLOW``: nothing planted there, a link or a file, is ever written through), then
flushed, fsynced and renamed onto the target. The rename replaces whatever is at the target
(a link itself, never where it points), so a crash mid-write leaves the previous file whole
and a link planted while a command runs is replaced, not followed.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

#: What every file is created as, unless its writer says otherwise (the public key).
PRIVATE_MODE = 0o600
#: Names tried for a temporary before giving up: a clash of 48 random bits is someone
#: planting names, not chance.
_TRIES = 8


@contextlib.contextmanager
def private_files() -> Iterator[None]:
    """Files and folders created inside the block are the user's alone (0600, 0700)."""
    before = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(before)


def private_folder(folder: Path) -> Path:
    """Create ``folder`` and every missing parent as 0700 (``mkdir(parents=True)`` gives the
    parents the default mode, which leaves a new data folder listable by everyone)."""
    missing = [path for path in (folder, *folder.parents) if not path.exists()]
    for path in reversed(missing):
        path.mkdir(mode=0o700, exist_ok=True)
    return folder


class NewFile:
    """One file being written in full before it takes the target's place; see the module
    doc. Use it as a context manager (the file is published when the block ends without an
    error, dropped otherwise), or hold it open and :meth:`publish` or :meth:`drop` it (a
    file written while a call runs)."""

    def __init__(self, target: Path, *, mode: int = PRIVATE_MODE) -> None:
        """Create the temporary beside ``target`` (its folder must exist) with ``mode``."""
        self.target = target
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_BINARY", 0)
        for _ in range(_TRIES):
            self._tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
            try:
                fd = os.open(self._tmp, flags, mode)
                break
            except FileExistsError:
                continue
        else:
            raise FileExistsError(f"no free temporary name beside {target}")
        self.file: BinaryIO = os.fdopen(fd, "wb")

    def publish(self, *, replace: bool = True) -> bool:
        """Flush, fsync and rename the file onto the target. ``replace=False`` never takes
        the place of a file already there (it stays, and the call returns False)."""
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()
            if replace:
                os.replace(self._tmp, self.target)
                return True
            try:
                os.link(self._tmp, self.target)  # atomic, and fails rather than replace
            except FileExistsError:
                return False
            return True
        finally:
            self.drop()

    def drop(self) -> None:
        """Give up: the temporary goes, the target stays as it was."""
        try:
            # On a full disk closing flushes again and fails; the fd is closed regardless,
            # and the data is being thrown away anyway.
            with contextlib.suppress(OSError):
                self.file.close()
        finally:
            self._tmp.unlink(missing_ok=True)

    def __enter__(self) -> BinaryIO:
        return self.file

    def __exit__(
        self,
        kind: type[BaseException] | None,
        _error: BaseException | None,
        _trace: TracebackType | None,
    ) -> None:
        if kind is None:
            self.publish()
        else:
            self.drop()


def write_file(target: Path, data: bytes | str, *, mode: int = PRIVATE_MODE) -> None:
    """Write ``data`` (text as UTF-8) to ``target`` whole or not at all (:class:`NewFile`)."""
    with NewFile(target, mode=mode) as out:
        out.write(data.encode("utf-8") if isinstance(data, str) else data)


def move_aside(source: Path, target: Path) -> None:
    """Rename ``source`` to ``target`` in the same folder, never over a file already there
    (a hard link made first refuses an existing name, a link planted there included), then
    drop the old name."""
    os.link(source, target, follow_symlinks=False)
    os.unlink(source)
