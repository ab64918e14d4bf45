"""Writing one session while the call runs, off the event loop.

The call hands each frame and event to :class:`SessionWriter`, which only queues it; a
thread of its own drains the queue and commits in small batches, so recording never
blocks the loop or delays a frame, and a crash loses at most the last batch (a quarter of
a second). If the disk fills (or the store fails otherwise) recording stops, the call goes
on, and ``on_failure`` says so once; what was committed stays readable.
"""

from __future__ import annotations

import json
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox import __version__
from sandbox.record.batches import batches
from sandbox.record.session_kinds import CallMode, Leg
from sandbox.record.store import RunningLock, connect, store_path
from sandbox.wire import WIRE_VERSION

log = logging.getLogger(__name__)

#: How long the writer gathers before committing: the most a crash can lose.
BATCH_S = 0.25
#: The writer's page cache, KiB. It only appends, so SQLite's default 2 MB cache would just
#: fill with pages it never reads again: in a long call, memory that only grows.
CACHE_KIB = 256


@dataclass(frozen=True)
class _Frame:
    t_ms: int
    dir: str
    raw: bytes


@dataclass(frozen=True)
class _Event:
    t_ms: int
    kind: str
    data: str


@dataclass(frozen=True)
class SessionEnd:
    """What the index learns when the call ends."""

    outcome: str
    ended_by: str
    end_detail: str
    duration_ms: int
    caller_turns: int
    units: int
    cuts: int
    errors: int
    report: dict[str, Any]


_Item = _Frame | _Event | SessionEnd


class SessionWriter:
    """Records one session into the store at ``path``; see the module doc."""

    def __init__(
        self,
        session_id: str,
        *,
        brain_url: str,
        leg: Leg,
        mode: CallMode,
        path: Path | None = None,
        started_at: float | None = None,
        on_failure: Callable[[str], None] | None = None,
        redrive_of: str | None = None,
        origin: str | None = None,
    ) -> None:
        """Open the store and write the session's index row now (so a crash still lists it),
        holding the session's lock while the call runs (so a reader tells it from a crash).

        ``leg``: how the brain was reached; ``mode``: what the call carried; ``origin``
        what recorded it when no person did (:data:`~sandbox.record.store.TEST_ORIGIN`).
        """
        self.session_id = session_id
        self.failure: str | None = None
        self.on_failure = on_failure
        path = path or store_path()
        self._db = connect(path)
        self._running = RunningLock(path, session_id)
        self._db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        with self._db:
            self._db.execute(
                "INSERT INTO sessions (id, started_at, brain_url, leg, mode, app_version, "
                "wire_version, redrive_of, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    started_at if started_at is not None else time.time(),
                    brain_url,
                    leg,
                    mode,
                    __version__,
                    WIRE_VERSION,
                    redrive_of,
                    origin,
                ),
            )
        self._queue: queue.Queue[_Item | None] = queue.Queue()
        self._frames = 0
        self._events = 0
        self._thread = threading.Thread(target=self._write, name="recorder", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------- the call's side

    def frame(self, t_ms: int, direction: str, raw: bytes | str) -> None:
        """One frame as it crossed (queued; never blocks)."""
        data = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
        self._queue.put(_Frame(t_ms, direction, data))

    def event(self, t_ms: int, kind: str, data: dict[str, Any]) -> None:
        """One runtime event (queued; never blocks)."""
        self._queue.put(_Event(t_ms, kind, json.dumps(data, ensure_ascii=False)))

    def finish(self, end: SessionEnd) -> None:
        """The call ended: write what is queued and the index's end, then close the store."""
        self._queue.put(end)
        self._queue.put(None)
        self._thread.join()
        self._db.close()
        self._running.release()

    @property
    def backlog(self) -> int:
        """Frames and events handed over but not yet committed (a soak watches it stay low)."""
        return self._queue.qsize()

    # ------------------------------------------------------------ the thread

    def _write(self) -> None:
        gathered: Iterator[list[_Item]] = batches(self._queue, BATCH_S)
        for batch in gathered:
            if self.failure is not None:
                # Recording stopped; the end of the call is still worth one small write
                # (the disk may have room again), so the index says how the call ended.
                batch = [item for item in batch if isinstance(item, SessionEnd)]
            if batch:
                self._commit(batch)

    def _commit(self, batch: list[_Item]) -> None:
        try:
            with self._db:
                for item in batch:
                    self._store(item)
        except Exception as exc:  # a value SQLite refuses (an integer over 64 bits) as well
            if self.failure is not None:
                log.warning("session %s: its end could not be recorded (%s)", self.session_id, exc)
                return
            self._failed(exc)
            ends: list[_Item] = [item for item in batch if isinstance(item, SessionEnd)]
            if ends:  # the end shared the failed batch: it is still worth its own write
                self._commit(ends)

    def _store(self, item: _Item) -> None:
        sid = self.session_id
        if isinstance(item, _Frame):
            self._db.execute(
                "INSERT INTO frames (session_id, seq, t_ms, dir, raw) VALUES (?, ?, ?, ?, ?)",
                (sid, self._frames, item.t_ms, item.dir, item.raw),
            )
            self._frames += 1
        elif isinstance(item, _Event):
            self._db.execute(
                "INSERT INTO events (session_id, seq, t_ms, kind, data) VALUES (?, ?, ?, ?, ?)",
                (sid, self._events, item.t_ms, item.kind, item.data),
            )
            self._events += 1
        else:
            self._db.execute(
                "UPDATE sessions SET ended_at = ?, outcome = ?, ended_by = ?, end_detail = ?, "
                "duration_ms = ?, caller_turns = ?, units = ?, cuts = ?, errors = ?, report = ?, "
                "recording_stopped = ? WHERE id = ?",
                (
                    time.time(),
                    item.outcome,
                    item.ended_by,
                    item.end_detail,
                    item.duration_ms,
                    item.caller_turns,
                    item.units,
                    item.cuts,
                    item.errors,
                    json.dumps(item.report, ensure_ascii=False),
                    self.failure,
                    sid,
                ),
            )

    def _failed(self, exc: Exception) -> None:
        """Stop recording for good; say why once. What was committed stays as it was."""
        full = "full" in str(exc).lower()
        self.failure = (
            "the disk is full: recording stopped; the call goes on, and what was recorded "
            "up to now is kept"
            if full
            else f"recording stopped ({exc}); the call goes on"
        )
        log.error("session %s: %s", self.session_id, self.failure, exc_info=True)
        try:
            with self._db:
                self._db.execute(
                    "UPDATE sessions SET recording_stopped = ? WHERE id = ?",
                    (self.failure, self.session_id),
                )
        except sqlite3.Error:
            log.warning("could not mark session %s as cut short", self.session_id)
        if self.on_failure is not None:
            self.on_failure(self.failure)
