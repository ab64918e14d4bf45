"""Reading what can still be read of a damaged SQLite table, row by row.

A page damaged behind a valid header (a disk that lost a write, a file copied while it was
written, bytes written over) makes every query that touches it fail with "database disk
image is malformed", and a plain ``SELECT`` stops at the first such page. Here a table is
read in rowid order and a failure is stepped over: the rows of the damaged page are lost,
the scan goes on at the next rowid that reads. Nothing is written to the database read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

#: SQLite's primary result codes for a file that is damaged: its pages do not read as a
#: database (CORRUPT, NOTADB), or the file ends before a page it points at (IOERR).
DAMAGE_CODES = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_IOERR})
_MAX_ROWID = 2**63 - 1


def is_damage(exc: sqlite3.Error) -> bool:
    """Whether SQLite failed because the database file is damaged."""
    return getattr(exc, "sqlite_errorcode", -1) & 0xFF in DAMAGE_CODES


@dataclass
class Scan:
    """What a scan of one table met: damaged stretches of the table stepped over (how many
    rows each held is unknown), rows whose own pages are damaged and did not read, and rows
    read only in part (the fallback's columns)."""

    damaged_stretches: int = 0
    damaged_rows: int = 0
    partial_rows: int = 0


def readable_rows(
    db: sqlite3.Connection,
    table: str,
    columns: Sequence[str],
    scan: Scan,
    fallback: Sequence[str] | None = None,
) -> Iterator[tuple[Any, ...]]:
    """Every row of ``table`` that reads, as ``columns``, in rowid order. A row whose own
    pages are damaged (a long value's overflow pages) is read as ``fallback``'s columns
    (the others None) when given, else skipped; a damaged page of the table is stepped
    over, its rows lost. ``scan`` counts what was lost. ``table`` and the columns are this
    build's names, never input."""
    wanted = ", ".join(columns)
    last = -_MAX_ROWID - 1
    while True:
        try:
            for rowid, *values in db.execute(
                f"SELECT rowid, {wanted} FROM {table} WHERE rowid > ? ORDER BY rowid", (last,)
            ):
                last = rowid
                yield tuple(values)
            return
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
        after = _first_rowid(db, table, last + 1)
        if after is None:  # what failed lies past the last row
            scan.damaged_stretches += 1
            return
        if isinstance(after, int):  # its page reads: the row alone, or the step past it
            row = _one_row(db, table, after, columns)
            if row is None and fallback:
                part = _one_row(db, table, after, fallback)
                if part is not None:
                    scan.partial_rows += 1
                    named = dict(zip(fallback, part, strict=True))
                    row = tuple(named.get(column) for column in columns)
            if row is None:
                scan.damaged_rows += 1
            else:
                yield row
            last = after
            continue
        resumed = _resume_after(db, table, last)
        scan.damaged_stretches += 1
        if resumed is None:
            return
        last = resumed - 1


class _Unreadable:
    """The pages holding a rowid do not read."""


_UNREADABLE = _Unreadable()


def _first_rowid(db: sqlite3.Connection, table: str, at_least: int) -> int | _Unreadable | None:
    """The first rowid from ``at_least`` on; None when there is none."""
    try:
        found = db.execute(
            f"SELECT rowid FROM {table} WHERE rowid >= ? ORDER BY rowid LIMIT 1", (at_least,)
        ).fetchone()
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):
            raise
        return _UNREADABLE
    return None if found is None else int(found[0])


def _readable_from(db: sqlite3.Connection, table: str, at_least: int) -> bool:
    """Whether the table reads from rowid ``at_least`` on (its next row, if any)."""
    return _first_rowid(db, table, at_least) is not _UNREADABLE


def _resume_after(db: sqlite3.Connection, table: str, last: int) -> int | None:
    """The smallest rowid past ``last`` from which the table reads again (None: nowhere):
    steps doubling in size past the damage, then halving back to its end, so a readable
    page after a damaged one is not skipped."""
    step, bad = 1, last
    while True:
        probe = min(last + step, _MAX_ROWID)
        if _readable_from(db, table, probe):
            break
        if probe == _MAX_ROWID:
            return None
        bad, step = probe, step * 2
    good = probe
    while good - bad > 1:  # the first probe that reads lies in (bad, good]
        middle = (bad + good) // 2
        if _readable_from(db, table, middle):
            good = middle
        else:
            bad = middle
    return good


def _one_row(
    db: sqlite3.Connection, table: str, rowid: int, columns: Sequence[str]
) -> tuple[Any, ...] | None:
    """Row ``rowid`` as ``columns``, read on its own (a scan steps one row ahead, so a row
    before a damaged page fails with it); None when it does not read."""
    try:
        found = db.execute(
            f"SELECT {', '.join(columns)} FROM {table} WHERE rowid = ?", (rowid,)
        ).fetchone()
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):
            raise
        return None
    return None if found is None else tuple(found)
