"""Promises with nothing behind them: a bot line that promises a follow-up at a time ("I'll
call you back at three tomorrow") on a turn where the brain ran no tool to book it."""

from __future__ import annotations

import re

from sandbox.judges.entities import DATE, TIME, values

#: TurnStep kinds that can book something; a model call alone cannot.
BOOKING_KINDS = frozenset({"tool", "mcp", "database", "http"})
_FOLLOW_UP = re.compile(
    r"\b(?:i'll|i will|we'll|we will|someone will|somebody will|they'll|they will|"
    r"i'm going to|we're going to|i can|we can)\s+(?:\w+\s+)?"
    r"(?:call|ring|phone|text|email|e-mail|message|contact|get back to|follow up|send|"
    r"reach out|be in touch|book|schedule|arrange)\b"
    r"|\b(?:expect a call|you'll hear from|you will hear from)\b",
    re.IGNORECASE,
)
_WHEN = re.compile(
    r"\b(?:tomorrow|today|tonight|later|this (?:morning|afternoon|evening|week)|"
    r"next (?:week|month|\w+day)|in (?:an|a|\d+|\w+) (?:hour|hours|minutes|days)|"
    r"first thing|end of the day|by (?:monday|tuesday|wednesday|thursday|friday))\b",
    re.IGNORECASE,
)


def promises_follow_up(bot_line: str) -> bool:
    """``bot_line`` promises a follow-up and says when."""
    if not _FOLLOW_UP.search(bot_line):
        return False
    if _WHEN.search(bot_line):
        return True
    return any(v.kind in (TIME, DATE) for v in values(bot_line))


def booked(step_kinds: list[str]) -> bool:
    """A turn whose steps include one that could book the follow-up."""
    return any(kind.lower() in BOOKING_KINDS for kind in step_kinds)
