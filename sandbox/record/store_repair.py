"""``sandbox sessions repair``: what a damaged store still holds, copied into a fresh one.

A store is damaged when SQLite's own check finds its pages broken, or when a row holds a
value not of its column's kind (text where a time belongs, an id with control characters):
readers then refuse it in words. Repair reads every row that still reads, around damaged
pages (:mod:`sandbox.record.salvage`), keeps those whose values are of their kinds in a new
store, and moves the damaged one aside under a name of its own, so nothing is deleted: what
repair could not read stays in the file set aside. A store with a call recording into it
is left alone.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.private_files import move_aside
from sandbox.record.salvage import Scan, is_damage, readable_rows
from sandbox.record.store import (
    RUNNING_DIR,
    SESSION_COLUMNS,
    DamagedRow,
    StoreError,
    connect,
    is_running,
    opening,
    read_only,
    session_row,
    short_id,
    store_path,
)

_FRAME_COLUMNS = ("session_id", "seq", "t_ms", "dir", "raw")
_EVENT_COLUMNS = ("session_id", "seq", "t_ms", "kind", "data")
#: The kinds SQLite must report for a frame's and an event's values (``typeof``).
_FRAME_KINDS = {"seq": "integer", "t_ms": "integer", "dir": "text", "raw": "blob"}
_EVENT_KINDS = {"seq": "integer", "t_ms": "integer", "kind": "text"}
#: Rows copied between two commits of the fresh store.
_BATCH = 5000
#: The files of a store in WAL mode, by their suffix to the database's name.
_COMPANIONS = ("", "-wal", "-shm")


@dataclass
class Repaired:
    """What a repair found and kept. ``aside`` is where the damaged store went (None: it
    was not damaged, and nothing was done)."""

    damage: str
    aside: Path | None = None
    sessions: int = 0
    #: Sessions kept without their stored report, which did not read (a reader rebuilds
    #: it from the frames and events).
    without_report: int = 0
    frames: int = 0
    events: int = 0
    #: Frames and events that did not read, held values not of their kinds, or belong to a
    #: session whose index row was lost.
    rows_lost: int = 0
    #: Damaged stretches of a table stepped over (how many rows they held is unknown).
    stretches_lost: int = 0
    #: Sessions whose index rows are damaged: left in the store set aside.
    set_aside: list[DamagedRow] = field(default_factory=list)


def repair_store(path: Path | None = None, now: Callable[[], float] = time.time) -> Repaired:
    """Repair the store at ``path`` (the user's by default); see the module doc."""
    path = path or store_path()
    if not path.exists():
        raise StoreError(f"there is no session store at {path}: nothing to repair")
    _no_call_recording(path)
    before = _state(path)
    damage = _damage(path)
    if damage is None:
        return Repaired("")
    fresh = _unused(path.with_name(f"{path.name}.repair"))
    repaired = Repaired(damage)
    try:
        _salvage(path, fresh, repaired)
        with opening(path):
            _no_call_recording(path)
            if _state(path) != before:
                raise StoreError(
                    f"the session store {path} changed while it was being repaired (a call "
                    "recorded into it): run `sandbox sessions repair` again"
                )
            stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now()))
            repaired.aside = _unused(path.with_name(f"{path.name}.damaged-{stamp}"))
            _move(path, repaired.aside)
            _move(fresh, path)
    finally:
        for suffix in _COMPANIONS:  # a repair that did not finish leaves no half store
            Path(f"{fresh}{suffix}").unlink(missing_ok=True)
    return repaired


def _no_call_recording(path: Path) -> None:
    """Refuse while a call records into the store: it would go on writing the old file."""
    folder = path.parent / RUNNING_DIR
    locks = sorted(folder.glob("*.lock")) if folder.is_dir() else []
    busy = [lock.stem for lock in locks if is_running(path, lock.stem)]
    if busy:
        raise StoreError(
            f"a call is being recorded into the session store (session {short_id(busy[0])}): hang "
            "it up first, then repair"
        )


def _state(path: Path) -> tuple[int, int, int, int]:
    """The store as it stands (its file's inode, size and change time, and how much its
    WAL holds): a repair moves aside the very store it read, nothing written since."""
    info = os.stat(path)
    try:
        wal = os.stat(f"{path}-wal").st_size
    except FileNotFoundError:
        wal = 0  # reading may make an empty one
    return (info.st_ino, info.st_size, info.st_mtime_ns, wal)


def _damage(path: Path) -> str | None:
    """What is wrong with the store, in words; None when nothing is."""
    try:
        with closing(read_only(path)) as db:
            checked = [str(row[0]) for row in db.execute("PRAGMA quick_check(1)")]
            if checked != ["ok"]:
                # "*** in database main ***\nPage 2: btreeInitPage() returns error code 11"
                said = [line for row in checked for line in row.splitlines() if "***" not in line]
                return f"SQLite's check: {'; '.join(said) or 'no answer'}"
            rows = [session_row(values) for values in db.execute(_select("sessions"))]
            damaged = [row for row in rows if isinstance(row, DamagedRow)]
            if damaged:
                return f"session {damaged[0].shown_id}'s index row: {damaged[0].why}"
            for table, kinds in (("frames", _FRAME_KINDS), ("events", _EVENT_KINDS)):
                wrong = " OR ".join(f"typeof({name}) != '{kind}'" for name, kind in kinds.items())
                (count,) = db.execute(f"SELECT COUNT(*) FROM {table} WHERE {wrong}").fetchone()
                if count:
                    return f"{count:,} of the {table} hold values not of their kinds"
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):
            raise StoreError(f"the session store {path} cannot be read ({exc})") from None
        return str(exc)
    return None


def _salvage(damaged: Path, fresh: Path, repaired: Repaired) -> None:
    """Copy every row of ``damaged`` that reads and holds values of its kinds into a new
    store at ``fresh``, counting what was kept and lost into ``repaired``."""
    try:
        source = read_only(damaged)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"the session store {damaged} does not open at all ({exc})") from None
    with closing(source), closing(connect(fresh)) as target:
        kept = _copy_sessions(source, target, repaired)
        scans = (Scan(), Scan())
        frames = readable_rows(source, "frames", _FRAME_COLUMNS, scans[0])
        events = readable_rows(source, "events", _EVENT_COLUMNS, scans[1])
        repaired.frames = _copy(target, "frames", _kept(frames, kept, _FRAME_KINDS, repaired))
        repaired.events = _copy(target, "events", _kept(events, kept, _EVENT_KINDS, repaired))
        for scan in scans:  # no fallback: a frame or an event reads whole or not at all
            repaired.rows_lost += scan.damaged_rows
            repaired.stretches_lost += scan.damaged_stretches


def _copy_sessions(
    source: sqlite3.Connection, target: sqlite3.Connection, repaired: Repaired
) -> set[str]:
    """The index rows that read whole and of their kinds (a row whose stored report does not
    read is kept without it); the ids kept."""
    scan = Scan()
    columns = (*SESSION_COLUMNS, "report")
    rows = readable_rows(source, "sessions", columns, scan, fallback=SESSION_COLUMNS)
    kept: set[str] = set()
    with target:
        for values in rows:
            row = session_row(values[:-1])
            if isinstance(row, DamagedRow):
                repaired.set_aside.append(row)
                continue
            if row.id in kept:
                continue  # the same id twice: a damaged index; the first stands
            target.execute(
                f"INSERT INTO sessions ({', '.join(columns)}) "
                f"VALUES ({', '.join('?' * len(columns))})",
                values,
            )
            kept.add(row.id)
    repaired.sessions = len(kept)
    repaired.without_report = scan.partial_rows
    repaired.stretches_lost += scan.damaged_stretches
    return kept


def _kept(
    rows: Iterable[tuple[object, ...]], sessions: set[str], kinds: dict[str, str], into: Repaired
) -> Iterator[tuple[object, ...]]:
    """The frames or events of kept sessions whose values are of their kinds."""
    types = {"integer": int, "text": str, "blob": bytes}
    wanted = [types[kind] for kind in kinds.values()]
    for row in rows:
        session_id, *values = row
        good = all(
            isinstance(v, want) and not isinstance(v, bool)
            for v, want in zip(values, wanted, strict=False)
        )
        if session_id in sessions and good:
            yield row
        else:
            into.rows_lost += 1


def _copy(target: sqlite3.Connection, table: str, rows: Iterable[tuple[object, ...]]) -> int:
    """Insert ``rows`` into ``table`` in batches; how many."""
    columns = _FRAME_COLUMNS if table == "frames" else _EVENT_COLUMNS
    insert = (
        f"INSERT OR IGNORE INTO {table} ({', '.join(columns)}) "
        f"VALUES ({', '.join('?' * len(columns))})"
    )
    count = 0
    batch: list[tuple[object, ...]] = []
    for row in rows:
        batch.append(row)
        if len(batch) == _BATCH:
            count += _insert(target, insert, batch)
            batch = []
    return count + _insert(target, insert, batch)


def _insert(target: sqlite3.Connection, insert: str, batch: list[tuple[object, ...]]) -> int:
    with target:
        target.executemany(insert, batch)
    return len(batch)


def _select(table: str) -> str:
    return f"SELECT {', '.join(SESSION_COLUMNS)} FROM {table}"


def _unused(path: Path) -> Path:
    """``path``, or with ``-2``, ``-3``... appended when a file of that name (or one of its
    WAL companions) is there."""
    candidate, number = path, 1
    while any(Path(f"{candidate}{suffix}").exists() for suffix in _COMPANIONS):
        number += 1
        candidate = path.with_name(f"{path.name}-{number}")
    return candidate


def _move(source: Path, target: Path) -> None:
    """A store and its WAL companions renamed (the same folder: each rename is atomic)."""
    for suffix in _COMPANIONS:
        if Path(f"{source}{suffix}").exists():
            move_aside(Path(f"{source}{suffix}"), Path(f"{target}{suffix}"))
