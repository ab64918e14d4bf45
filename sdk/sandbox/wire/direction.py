"""Which way a frame crossed the wire, as the record and the report say it."""

from __future__ import annotations

import enum


class Direction(enum.StrEnum):
    """``in``: the brain sent it to Voqalize (B→V); ``out``: Voqalize sent it (V→B)."""

    IN = "in"
    OUT = "out"


def direction(word: str) -> Direction | None:
    """The direction a stored word names; None for anything else (a damaged store's)."""
    try:
        return Direction(word)
    except ValueError:
        return None
