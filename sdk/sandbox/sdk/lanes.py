"""Two lanes into one consumer: urgent items overtake everything queued, never what is running."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class Lanes(Generic[T]):
    """A FIFO with a priority lane; :meth:`get` serves the urgent lane first."""

    def __init__(self) -> None:
        self._urgent: deque[T] = deque()
        self._normal: deque[T] = deque()
        self._waiting = asyncio.Event()

    def put(self, item: T, *, urgent: bool = False) -> None:
        """Queue one item, on the urgent lane if ``urgent``."""
        (self._urgent if urgent else self._normal).append(item)
        self._waiting.set()

    async def get(self) -> T:
        """The next item: the oldest urgent one, else the oldest normal one."""
        while not (self._urgent or self._normal):
            self._waiting.clear()
            await self._waiting.wait()
        return self._urgent.popleft() if self._urgent else self._normal.popleft()
