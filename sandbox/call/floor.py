"""The thin-call floor: under it a call is too thin to summarise (docs/call-record.md, the
floor: summarising ten one-turn calls once invented an afternoon of detail)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: A call needs this many caller lines, or
MIN_LINES = 2
#: this many caller words, to be worth summarising.
MIN_WORDS = 5


@dataclass(frozen=True)
class Floor:
    """How much the caller said, and whether it clears the floor."""

    lines: int
    words: int

    @property
    def below(self) -> bool:
        """Fewer than two lines and fewer than five words from the caller."""
        return self.lines < MIN_LINES and self.words < MIN_WORDS

    @property
    def why(self) -> str:
        """The floor in words, with this call's counts."""
        said = f"{_count(self.lines, 'caller line')} and {_count(self.words, 'word')}"
        if self.below:
            return f"{said}: below the floor ({MIN_LINES} lines or {MIN_WORDS} words)"
        return f"{said}: above the floor"


def measure(caller_lines: Sequence[str]) -> Floor:
    """The floor of a call whose caller said ``caller_lines``."""
    return Floor(len(caller_lines), sum(len(line.split()) for line in caller_lines))


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
