"""Where log lines go: a file, never the terminal the app draws on or a script's output."""

from __future__ import annotations

import logging
from pathlib import Path

from sandbox.wire.tokens import data_dir


def log_path() -> Path:
    """The log file: ``<data dir>/logs/sandbox.log``."""
    return data_dir() / "logs" / "sandbox.log"


def log_to_file(level: int = logging.INFO) -> None:
    """Send every log line to :func:`log_path` (dropped if it cannot be written)."""
    root = logging.getLogger()
    handler: logging.Handler
    try:
        path = log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(path, encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(level)
