"""How large a caller script may be, and the range of every number in it.

A script is the author's, but it may be anybody's: a script that asks for a word every 292
million years, a silence longer than a life or 200,000 expectations must be refused before
the call, in words naming the key and its range, not found out as a hang, an overflow deep
in the recorder or a flood of output. The ranges are wide enough for any call a person
would make (docs/caller-scripts.md lists them).
"""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.call.core import shortened
from sandbox.record.plain_text import visible

#: A script's text, in characters: thousands of steps fit (a soak's hours-long caller).
MAX_SCRIPT_CHARS = 4_000_000
#: Steps in one script (a step a few seconds: a call of several hours).
MAX_STEPS = 10_000
#: How deeply lists and tables may sit in each other (an rtvi step's data is the deepest).
MAX_NESTING = 32
#: The caller's words in one step (a line, its ``then``, a typed text).
MAX_LINE_CHARS = 10_000
#: Phrases in one expectation (``heard_contains``, ...), and the characters in each.
MAX_PHRASES = 100
MAX_PHRASE_CHARS = 1_000
#: Tables in one list of ``record.FIELD`` in ``[expect]``.
MAX_RECORD_ITEMS = 100


@dataclass(frozen=True)
class Range:
    """A whole number a script may give, from ``low`` to ``high`` (both allowed)."""

    low: int
    high: int
    unit: str = ""

    def holds(self, value: object) -> bool:
        """Whether ``value`` is a whole number in the range."""
        return whole(value) and self.low <= value <= self.high  # type: ignore[operator]

    def refusal(self, key: str, value: object) -> str:
        """Why ``value`` is refused for ``key``, in words with the range."""
        unit = f" of {self.unit}" if self.unit else ""
        if self.low == 1:
            wanted = f"a positive whole number{unit} up to {self.high:,}"
        else:
            wanted = f"a whole number{unit} from {self.low:,} to {self.high:,}"
        return f"{key} must be {wanted} (got {shown_value(value)})"


#: The simulated speaking rate, ms a word (--audio sim).
MS_PER_WORD = Range(1, 10_000, "ms")
#: Words of the bot's reply a barge-in or a backchannel waits for.
AFTER_WORDS = Range(0, 10_000)
#: The pause mid-thought of a ``say`` with ``then``.
PAUSE_MS = Range(0, 60_000, "ms")
#: A ``silence_ms`` step: ten minutes (on the warp clock, dozens of idle nudges).
SILENCE_MS = Range(0, 600_000, "ms")
#: ``expect.reply_within_ms``.
REPLY_WITHIN_MS = Range(1, 600_000, "ms")


def whole(value: object) -> bool:
    """A TOML integer: ``true`` is an int to Python, never a count to a script."""
    return isinstance(value, int) and not isinstance(value, bool)


def shown_value(value: object) -> str:
    """A value from a script, short and safe to print, for a refusal to quote."""
    if whole(value):
        return f"{value:,}"
    if isinstance(value, bool):
        return str(value).lower()
    return visible(shortened(repr(value), 40))


def nesting(value: object) -> int:
    """How deeply lists and tables sit in each other in ``value`` (a scalar: 0), counted
    without recursion, so a document nested thousands deep is measured, not crashed on."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            stack += [(child, depth + 1) for child in item.values()]
        elif isinstance(item, list):
            stack += [(child, depth + 1) for child in item]
        else:
            deepest = max(deepest, depth)
            continue
        deepest = max(deepest, depth + 1)
    return deepest
