"""Every frame a call has crossed, kept in memory for its report and its screens, compactly.

A frame is its time, its direction and its bytes, packed one after another into a single
buffer: a 12-byte chunk frame costs 28 bytes kept this way, and cost 97 as an object of its
own (with its bytes and time as objects too), which lived as long as the call among the
short-lived objects of every turn. What is not a frame (a message that did not decode) is
kept as given, at its place in the order.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Generic, TypeVar

T = TypeVar("T")

#: Per frame: its time (ms, signed), its direction's number, its length in bytes.
_HEAD = struct.Struct("<qBI")


class FrameLog(Generic[T]):
    """Frames (time, direction, bytes) and other entries of type ``T``, in the order added."""

    def __init__(self) -> None:
        self._data = bytearray()
        self._directions: list[str] = []  # a frame's direction is kept as its index here
        self._others: dict[int, T] = {}  # entries that are not frames, by position
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def add_frame(self, t_ms: int, direction: str, raw: bytes) -> None:
        """One frame as it crossed."""
        if direction not in self._directions:
            self._directions.append(direction)
        self._data += _HEAD.pack(t_ms, self._directions.index(direction), len(raw))
        self._data += raw
        self._count += 1

    def add_other(self, entry: T) -> None:
        """Something that is not a frame, kept whole at this place in the order."""
        self._others[self._count] = entry
        self._count += 1

    def __iter__(self) -> Iterator[tuple[int, str, bytes] | T]:
        """Every entry in order: a frame as ``(t_ms, direction, raw)``, anything else as added."""
        at = 0
        for position in range(self._count):
            if position in self._others:
                yield self._others[position]
                continue
            t_ms, direction, size = _HEAD.unpack_from(self._data, at)
            at += _HEAD.size
            yield t_ms, self._directions[direction], bytes(self._data[at : at + size])
            at += size
