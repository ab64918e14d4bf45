"""Files only the user can read: what a caller said, and the key that signs tokens.

Everything the sandbox keeps in its data folder is created private (folders 0700, files
0600) from the first byte, never tightened afterwards, so no other user can ever read it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path


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
