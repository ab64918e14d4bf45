"""A data directory of the bench's own, so measuring never touches the user's sessions."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from sandbox.paths import HOME_ENV


@contextlib.contextmanager
def own_home() -> Iterator[Path]:
    """Point the data directory (keys, session store) at a fresh temporary one meanwhile."""
    with tempfile.TemporaryDirectory() as home:
        previous = os.environ.get(HOME_ENV)
        os.environ[HOME_ENV] = home
        try:
            yield Path(home)
        finally:
            if previous is None:
                del os.environ[HOME_ENV]
            else:
                os.environ[HOME_ENV] = previous
