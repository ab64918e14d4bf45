"""The values a command line takes, each checked where argparse parses it (``type=``).

Every option's value goes through one of these, so a value out of range, malformed or
hostile is refused before the command starts, in one line naming the option (argparse
prefixes ``argument --port:``) with exit 2, never found out later as a traceback or the
catch-all "unexpected error". A refusal quotes the value shortened and with its control
characters escaped (:func:`sandbox.record.plain_text.quoted`).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from sandbox.call.core import shortened
from sandbox.errors import UserError
from sandbox.record.plain_text import quoted
from sandbox.wire.addresses import ANY_FREE_PORT, MAX_PORT, MIN_PORT

T = TypeVar("T")

#: Characters of a refused value quoted back: enough to recognise it, never a screenful.
QUOTED_CHARS = 60

#: The longest file name a command takes (Linux's PATH_MAX), and the longest of its parts
#: (NAME_MAX: longer, the system refuses it when it is opened).
MAX_PATH_CHARS = 4096
MAX_PART_CHARS = 255
#: The longest name (a device, a session id, a filter) a command takes.
MAX_NAME_CHARS = 1000


def whole(low: int, high: int, unit: str = "", zero: str = "") -> Callable[[str], int]:
    """A whole number from ``low`` to ``high``; ``zero``: what 0 means, said in the refusal."""
    unit_words = f" of {unit}" if unit else ""
    zero_words = f" (0: {zero})" if zero else ""
    wanted = f"a whole number{unit_words} from {low:,} to {high:,}{zero_words}"

    def whole_number(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {wanted}, not {shown(text)}") from None
        if not low <= value <= high:
            # A number of thousands of digits is quoted short, as any other text is.
            got = f"{value:,}" if len(text) <= QUOTED_CHARS else shown(text)
            raise argparse.ArgumentTypeError(f"must be {wanted} (got {got})")
        return value

    return whole_number


def number(low: float, high: float, unit: str) -> Callable[[str], float]:
    """A finite number of ``unit`` from ``low`` to ``high`` (``inf`` and ``nan`` are not)."""
    wanted = f"a number of {unit} from {low:,g} to {high:,g}"

    def finite_number(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {wanted}, not {shown(text)}") from None
        if not math.isfinite(value) or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {wanted} (got {value:g})")
        return value

    return finite_number


def port(*, any_free: bool) -> Callable[[str], int]:
    """A port: 1 to 65535, or 0 as well where ``any_free`` (a listener: any free port)."""
    if any_free:
        return whole(ANY_FREE_PORT, MAX_PORT, zero="any free port")
    return whole(MIN_PORT, MAX_PORT)


def name(text: str) -> str:
    """A name (a device, a session id, a brain, a filter): some printable text."""
    return _printable(text, MAX_NAME_CHARS)


def path(text: str) -> Path:
    """A file or folder's name: not empty, no control characters (it is printed back), no
    longer than the system takes."""
    try:
        named = Path(_printable(text, MAX_PATH_CHARS))
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"a file name {exc}") from None
    longest = max((len(part) for part in named.parts), default=0)  # "." has no parts
    if longest > MAX_PART_CHARS:
        raise argparse.ArgumentTypeError(
            f"a file name's parts are at most {MAX_PART_CHARS} characters (got {longest:,})"
        )
    return named


def _printable(text: str, most: int) -> str:
    """``text`` when it is not empty, has no control characters and at most ``most``
    characters."""
    if not text:
        raise argparse.ArgumentTypeError("must not be empty")
    if len(text) > most:
        raise argparse.ArgumentTypeError(f"must be at most {most:,} characters (got {len(text):,})")
    if not text.isprintable():
        raise argparse.ArgumentTypeError(f"must have no control characters (got {shown(text)})")
    return text


def checked(check: Callable[[str], T], *, named: bool = True) -> Callable[[str], T]:
    """``check`` (a UserError or a ValueError in words when the text is wrong) as a
    ``type=``: its words become the option's one-line refusal. ``named``: the text is a
    :func:`name` first (printable, not empty, not long); without it any text reaches
    ``check``, which bounds it itself (a JSON document)."""

    def checked_value(text: str) -> T:
        try:
            return check(name(text) if named else text)
        except (UserError, ValueError) as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return checked_value


def shown(text: str) -> str:
    """A refused value as its refusal quotes it: shortened, control characters escaped."""
    return quoted(shortened(text, QUOTED_CHARS))
