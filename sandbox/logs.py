"""Where log lines go: a file, never the terminal the app draws on or a script's output."""

from __future__ import annotations

import contextlib
import errno
import logging
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sandbox.paths import data_dir
from sandbox.private_files import private_files, private_folder


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


class QuietFileHandler(logging.FileHandler):
    """A log file that gives up quietly: the first line it cannot write (a full disk, a
    folder gone) stops it for good, with one line on stderr saying so, never a traceback."""

    stopped = False

    def emit(self, record: logging.LogRecord) -> None:
        """Write the line, unless logging has stopped."""
        if not self.stopped:
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:
        """The file cannot be written: stop logging and say why, once (logging's default
        prints a traceback for every line)."""
        failed = sys.exc_info()[1]
        if not isinstance(failed, OSError):  # a malformed logging call: a bug, reported so
            super().handleError(record)
            return
        if self.stopped:
            return
        self.stopped = True
        if failed.errno == errno.ENOSPC:
            why = f"the disk holding {Path(self.baseFilename).parent} is full"
        else:
            why = f"{self.baseFilename} cannot be written ({failed.strerror or failed})"
        print(f"sandbox: logging stopped: {why}; the rest is not logged", file=sys.stderr)

    def flush(self) -> None:
        """Flush, unless logging has stopped (what is left would only fail again)."""
        if not self.stopped:
            super().flush()

    def close(self) -> None:
        """Close the file; what could not be written is dropped, never raised."""
        with contextlib.suppress(OSError):
            super().close()


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
            handler = QuietFileHandler(path, encoding="utf-8")
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
