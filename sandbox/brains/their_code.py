"""A brain author's own mistakes, shown as theirs: the traceback trimmed to their files.

The sandbox's frames (and Python's import machinery) say nothing to someone whose module
has a typo, and "please report" would send them to the wrong people. What is left is
their file, their line and the error, with a sentence saying whose code it is.
"""

from __future__ import annotations

import logging
import os
import sysconfig
import traceback
from pathlib import Path
from types import TracebackType

import sandbox
from sandbox.errors import UserError

#: Every folder of the sandbox package: the app's and the SDK's (a package in two folders).
_SANDBOX = tuple(Path(folder).resolve() for folder in sandbox.__path__)
_PATHS = sysconfig.get_paths()
#: Python's own library: not theirs. Packages they installed are, when their code called in.
_STDLIB = tuple({Path(_PATHS[key]).resolve() for key in ("stdlib", "platstdlib")})
_INSTALLED = tuple({Path(_PATHS[key]).resolve() for key in ("purelib", "platlib")})


class BrainCodeError(UserError):
    """The author's brain failed in its own code; the message carries their traceback."""


def in_their_code(exc: BaseException, doing: str) -> BrainCodeError:
    """``exc`` raised by the author's code while the sandbox was ``doing`` something."""
    return BrainCodeError(
        f"your brain's code failed {doing}. The error is in your code, not the sandbox's:\n"
        f"{their_traceback(exc).rstrip()}"
    )


def their_traceback(exc: BaseException) -> str:
    """``exc`` formatted with only the author's frames (paths relative to here when inside)."""
    shown = traceback.TracebackException.from_exception(exc)
    theirs = [frame for frame in shown.stack if _is_theirs(frame.filename)]
    for frame in theirs:
        frame.filename = _short(frame.filename)
    if isinstance(exc, SyntaxError) and shown.filename:
        shown.filename = _short(shown.filename)
    lines = traceback.StackSummary.from_list(theirs).format()
    return "".join(lines) + "".join(shown.format_exception_only())


def _is_theirs(filename: str) -> bool:
    if filename.startswith("<"):  # <frozen importlib._bootstrap> and the like
        return False
    path = Path(filename).resolve()
    if any(path.is_relative_to(folder) for folder in _SANDBOX):
        return False
    if any(path.is_relative_to(place) for place in _INSTALLED):
        return True
    return not any(path.is_relative_to(place) for place in _STDLIB)


def _short(filename: str) -> str:
    path = Path(filename)
    try:
        return os.path.relpath(path) if path.resolve().is_relative_to(Path.cwd()) else filename
    except ValueError:  # another drive on Windows
        return filename


class TheirTracebacks(logging.Formatter):
    """A log formatter for ``sandbox brain``: an exception a brain callback raised is logged
    with the author's frames only."""

    def formatException(
        self,
        ei: tuple[type[BaseException], BaseException, TracebackType | None]
        | tuple[None, None, None],
    ) -> str:
        """The exception as :func:`their_traceback` shows it."""
        exc = ei[1]
        return super().formatException(ei) if exc is None else their_traceback(exc).rstrip()
