"""Lines of samples queued to be played, taken block by block (the scripted microphone and
the bench's device probe both feed a stream this way)."""

from __future__ import annotations

from collections import deque
from typing import Any

from numpy.typing import NDArray


def take_into(queue: deque[NDArray[Any]], out: NDArray[Any]) -> None:
    """Fill ``out`` from the front of ``queue``, consuming what was used; where the queue
    runs out, ``out`` is left as it was (silence, if it was zeros)."""
    filled = 0
    while queue and filled < len(out):
        line = queue[0]
        take = min(len(out) - filled, len(line))
        out[filled : filled + take] = line[:take]
        filled += take
        if take == len(line):
            queue.popleft()
        else:
            queue[0] = line[take:]
