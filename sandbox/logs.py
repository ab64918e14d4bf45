"""Where log lines go: a file, never the terminal the app draws on or a script's output."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sandbox.private_files import private_files, private_folder
from sandbox.wire.tokens import data_dir


def log_path() -> Path:
    """The log file: ``<data dir>/logs/sandbox.log``."""
    return data_dir() / "logs" / "sandbox.log"


#: A JWT (base64url of a JSON header, payload and signature), the one secret that crosses.
_TOKEN = re.compile(r"eyJ[\w-]*\.[\w-]*\.[\w-]*")


class Redacted(logging.Filter):
    """Takes tokens out of log lines: at debug level websockets logs every handshake
    header, ``Authorization: Bearer <jwt>`` included."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message with each token replaced; never drops it."""
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            return True  # a malformed call: the handler reports it as logging always has
        clean = _TOKEN.sub("<token>", message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


@contextmanager
def logging_to_file(level: int = logging.INFO) -> Iterator[None]:
    """Send every log line to :func:`log_path` (dropped if it cannot be written) until the
    block ends; then the handler is closed and the root logger is as it was, so a command
    run in-process (a test, a script) leaves no file open behind it on a disk that may go."""
    root = logging.getLogger()
    handler: logging.Handler
    try:
        path = log_path()
        private_folder(path.parent)
        with private_files():  # a log line may quote what a caller said
            handler = logging.FileHandler(path, encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(Redacted())
    level_before = root.level
    root.addHandler(handler)
    root.setLevel(level)
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(level_before)
        handler.close()
        if not root.handlers:  # else a thread's last line would go to the terminal
            root.addHandler(logging.NullHandler())
