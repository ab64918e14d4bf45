"""Where the sandbox keeps its files on disk: one data directory for keys, sessions, audio
legs, voices and logs, so every layer that writes finds the same place."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

#: Environment variable naming the sandbox's data directory (tests point it at a tmp dir).
HOME_ENV = "VOQALIZE_SANDBOX_HOME"


def data_dir() -> Path:
    """Where the sandbox keeps its files: ``$VOQALIZE_SANDBOX_HOME`` or the user data dir."""
    override = os.environ.get(HOME_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_data_dir("voqalize-sandbox", appauthor=False))
