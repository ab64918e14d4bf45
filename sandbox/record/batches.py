"""Gathering what the call hands a recording thread into batches, so a write is one commit."""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from typing import TypeVar

T = TypeVar("T")


def batches(items: queue.Queue[T | None], batch_s: float) -> Iterator[list[T]]:
    """Wait for an item, gather what else arrives within ``batch_s``, yield it all; until a
    None is queued (what came before it is yielded first)."""
    closing = False
    while not closing:
        first = items.get()
        closing = first is None
        batch: list[T] = [] if first is None else [first]
        deadline = time.monotonic() + batch_s
        while not closing and (left := deadline - time.monotonic()) > 0:
            try:
                item = items.get(timeout=left)
            except queue.Empty:
                break
            if item is None:
                closing = True
            else:
                batch.append(item)
        if batch:
            yield batch
