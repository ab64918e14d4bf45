"""Choices read off a fuzzer's bytes.

Every byte string is a valid sequence of choices, and an exhausted input reads zeros, so
a mutating fuzzer (or hypothesis shrinking) moves through structured inputs without ever
producing one the target cannot read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


class Draw:
    """A cursor over fuzz bytes that answers structured questions."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._at = 0

    @property
    def left(self) -> int:
        """Bytes not read yet."""
        return max(len(self._data) - self._at, 0)

    def byte(self) -> int:
        """One byte, 0 once the input is used up."""
        if self._at >= len(self._data):
            return 0
        value = self._data[self._at]
        self._at += 1
        return value

    def number(self, lo: int, hi: int) -> int:
        """A whole number in ``[lo, hi]``, read from as few bytes as the range needs."""
        span = hi - lo
        if span <= 0:
            return lo
        value = 0
        for _ in range((span.bit_length() + 7) // 8):
            value = (value << 8) | self.byte()
        return lo + value % (span + 1)

    def flip(self) -> bool:
        """Yes or no."""
        return self.byte() & 1 == 1

    def pick(self, options: Sequence[T]) -> T:
        """One of ``options``."""
        return options[self.number(0, len(options) - 1)]

    def bytes(self, most: int) -> bytes:
        """Up to ``most`` raw bytes."""
        size = min(self.number(0, most), self.left)
        out = self._data[self._at : self._at + size]
        self._at += size
        return out

    def text(self, most: int) -> str:
        """Up to ``most`` bytes' worth of arbitrary text (invalid UTF-8 replaced)."""
        return self.bytes(most).decode("utf-8", errors="replace")
