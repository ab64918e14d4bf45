"""The session store: every call as it happened, in one SQLite database (WAL mode).

A session is its index row, every frame's raw envelope bytes both ways with its time and
direction, and the runtime's own events on the same clock. Raw bytes, not decoded text,
so a later build re-decodes what crossed and nothing is lost. The schema is versioned
(``PRAGMA user_version``): an older store is migrated forward, a newer one is refused in
words. The files are private to the user: they hold what a caller said.
"""

from __future__ import annotations

import enum
import errno
import fcntl
import functools
import json
import math
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeGuard, TypeVar

from sandbox.call.effects import EndedBy
from sandbox.call.outcome import Outcome
from sandbox.errors import UserError
from sandbox.paths import data_dir
from sandbox.private_files import private_files, private_folder
from sandbox.record.leg_files import plain_id, remove_legs
from sandbox.record.plain_text import quoted, visible
from sandbox.record.salvage import Scan, is_damage, readable_rows
from sandbox.record.session_kinds import CallMode, Leg
from sandbox.record.stored_events import (
    UNREADABLE,
    DamagedEvent,
    Recorded,
    event_row,
    read_event,
)

#: The layout this build writes and reads. Each entry of _MIGRATIONS moves one version up.
SCHEMA_VERSION = 3
STORE_FILE = "sessions.db"
#: How long a reader or writer waits for another process's lock ...
BUSY_TIMEOUT_S = 10.0
#: ... of which this long quietly: past it, the wait is said (a commit takes milliseconds;
#: a lock held longer is another program's, and the user should know why nothing happens).
QUIET_WAIT_S = 0.5
#: The folder beside the store where each call in progress holds its lock file.
RUNNING_DIR = "running"

_MIGRATIONS: tuple[str, ...] = (
    # 0 -> 1: the first layout.
    """
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        started_at REAL NOT NULL,
        ended_at REAL,
        brain_url TEXT NOT NULL,
        leg TEXT NOT NULL,
        mode TEXT NOT NULL,
        app_version TEXT NOT NULL,
        wire_version INTEGER NOT NULL,
        outcome TEXT,
        ended_by TEXT,
        end_detail TEXT,
        duration_ms INTEGER,
        caller_turns INTEGER,
        units INTEGER,
        cuts INTEGER,
        errors INTEGER,
        report TEXT,
        recording_stopped TEXT
    );
    CREATE TABLE frames (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        t_ms INTEGER NOT NULL,
        dir TEXT NOT NULL,
        raw BLOB NOT NULL,
        PRIMARY KEY (session_id, seq)
    );
    CREATE TABLE events (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        t_ms INTEGER NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
    );
    CREATE INDEX sessions_started ON sessions(started_at);
    """,
    # 1 -> 2: a re-drive names the session whose caller side it played.
    """
    ALTER TABLE sessions ADD COLUMN redrive_of TEXT;
    """,
    # 2 -> 3: what recorded a call when no person did (a test run's, TEST_ORIGIN).
    """
    ALTER TABLE sessions ADD COLUMN origin TEXT;
    """,
)
#: The origin of a session a caller script recorded as a test (``sandbox test``, the pytest
#: plugin): ``sessions list`` leaves those out unless asked, so they do not crowd out calls.
TEST_ORIGIN = "test"


class StoreError(UserError):
    """The store cannot be read or written as asked; the message says what to do."""


@dataclass(frozen=True)
class SessionRow:
    """One session's index entry. ``outcome`` is None while the call runs, or if it never
    finished (the process died): it reads as ``unfinished``."""

    id: str
    started_at: float
    ended_at: float | None
    brain_url: str
    leg: Leg
    mode: CallMode
    app_version: str
    wire_version: int
    outcome: Outcome | None
    ended_by: EndedBy | None
    end_detail: str | None
    duration_ms: int | None
    caller_turns: int | None
    units: int | None
    cuts: int | None
    errors: int | None
    recording_stopped: str | None
    redrive_of: str | None  # the session whose caller side this one re-drove
    origin: str | None = None  # TEST_ORIGIN for a test run's; None for a person's call

    @property
    def status(self) -> str:
        """The outcome, or ``unfinished`` for a call that never reached its end."""
        return self.outcome or Outcome.UNFINISHED


@dataclass(frozen=True)
class StoredFrame:
    """One frame as it crossed: ``raw`` is the envelope's bytes (a text message is kept as
    its UTF-8 bytes, ``dir`` ``in`` is from the brain)."""

    seq: int
    t_ms: int
    dir: str
    raw: bytes


@dataclass(frozen=True)
class StoredEvent:
    """One of the runtime's own events (a word played, a barge-in, a notice...): its row as
    stored, and its :attr:`value`, of the type its kind names."""

    seq: int
    t_ms: int
    kind: str
    data: dict[str, Any]

    @functools.cached_property
    def value(self) -> Recorded | DamagedEvent | None:
        """The event as its type (:mod:`sandbox.record.stored_events`), read once: a
        :class:`DamagedEvent` when its data does not fit its kind, None for a kind this
        build does not know."""
        return read_event(self.kind, self.data)


#: A session's index row's columns, as :class:`SessionRow` holds them.
SESSION_COLUMNS = tuple(SessionRow.__dataclass_fields__)
_ROW_COLUMNS = ", ".join(SESSION_COLUMNS)
_TEXT = ("brain_url", "leg", "mode", "app_version")
_MAYBE_TEXT = ("outcome", "ended_by", "end_detail", "recording_stopped", "redrive_of", "origin")
#: The columns that hold a word of a vocabulary, and which (None is allowed where text may be).
_WORDS: dict[str, type[enum.StrEnum]] = {
    "leg": Leg,
    "mode": CallMode,
    "outcome": Outcome,
    "ended_by": EndedBy,
}
_MAYBE_COUNT = ("duration_ms", "caller_turns", "units", "cuts", "errors")


@dataclass(frozen=True)
class DamagedRow:
    """A session's index row holding a value not of its column's kind (doctored, or written
    over): its id as printable text, and what is wrong, in words."""

    shown_id: str
    why: str


def session_row(values: Sequence[Any]) -> SessionRow | DamagedRow:
    """A session's index row as read (its :data:`SESSION_COLUMNS`), or why it is damaged."""
    fields = dict(zip(SESSION_COLUMNS, values, strict=True))
    why = _row_damage(fields)
    if why is None:
        for name, words in _WORDS.items():
            if fields[name] is not None:
                fields[name] = words(fields[name])
        return SessionRow(**fields)
    return DamagedRow(shown_id(fields["id"]), why)


def _row_damage(fields: dict[str, Any]) -> str | None:
    session_id = fields["id"]
    if not isinstance(session_id, str) or not session_id or visible(session_id) != session_id:
        return "its id is not plain text"
    for name in ("started_at", "ended_at"):
        value = fields[name]
        if (value is not None or name == "started_at") and not _a_time(value):
            return f"{name} is not a time"
    for name in _TEXT:
        if not isinstance(fields[name], str):
            return f"{name} is not text"
    for name in _MAYBE_TEXT:
        if fields[name] is not None and not isinstance(fields[name], str):
            return f"{name} is not text"
    for name, words in _WORDS.items():
        value = fields[name]
        if value is not None and value not in tuple(words):
            return f"{name} '{shown_id(value)}' is not one of {', '.join(words)}"
    for name in ("wire_version", *_MAYBE_COUNT):
        if (fields[name] is not None or name == "wire_version") and not _whole(fields[name]):
            return f"{name} is not a whole number"
    return None


def _a_time(value: object) -> bool:
    """Seconds since 1970 as a number. One no clock can show (the year 5,000,000) still
    reads, so its frames do; its printers show it as ``?``."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def shown_id(value: object) -> str:
    """A session id as stored, as printable text: a damaged one may hold anything."""
    text = value if isinstance(value, str) else repr(value)
    return visible(text if len(text) <= 40 else f"{text[:40]}…")


#: How many of a session id's characters are shown wherever one is (any unique prefix names it).
SHORT_ID_CHARS = 12


def short_id(session_id: str) -> str:
    """A session id as every list, message and hint shows it: its first
    :data:`SHORT_ID_CHARS` characters."""
    return session_id[:SHORT_ID_CHARS]


def store_path() -> Path:
    """Where the store lives: ``<data dir>/sessions.db``."""
    return data_dir() / STORE_FILE


def connect(path: Path | None = None) -> sqlite3.Connection:
    """Open (creating if need be) the store at ``path``, migrated to this build's layout.
    Another process's lock is waited for, saying so (:func:`patiently`); a store that is
    locked, damaged or not the sandbox's is refused in words."""
    path = path or store_path()
    try:
        private_folder(path.parent)
        # The database, its WAL and shared-memory files are private; opening is one process
        # at a time, so a fresh store is made once (two processes both reading layout 0
        # used to both migrate, and the loser's call went unrecorded).
        with private_files(), opening(path):
            db = sqlite3.connect(path, timeout=QUIET_WAIT_S, check_same_thread=False)
            try:
                patiently(path, db, lambda: _prepare(db, path))
            except BaseException:
                db.close()
                raise
            _set_busy_timeout(db, BUSY_TIMEOUT_S)
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise full_disk(path.parent) from None
        raise StoreError(
            f"the session store {path} cannot be opened ({exc.strerror or exc}): check that "
            "its folder is yours and writable"
        ) from None
    except sqlite3.DatabaseError as exc:
        raise store_failure(path, exc) from None
    return db


def _prepare(db: sqlite3.Connection, path: Path) -> None:
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA foreign_keys=ON")
    _migrate(db, path)


_T = TypeVar("_T")
_P = ParamSpec("_P")


def patiently(path: Path, db: sqlite3.Connection, action: Callable[[], _T]) -> _T:
    """``action`` on ``db``, whose busy timeout is :data:`QUIET_WAIT_S`. When another
    process holds the store's lock past it, the wait is said once on stderr and goes on up
    to :data:`BUSY_TIMEOUT_S`; a lock still held then is refused in words. ``action`` must
    be safe to run again (a read, or one transaction that a failure rolls back)."""
    try:
        return action()
    except sqlite3.OperationalError as exc:
        if not is_locked(exc):
            raise
    print(
        f"the session store {path} is locked by another process: waiting up to "
        f"{BUSY_TIMEOUT_S:.0f} s for it to let go",
        file=sys.stderr,
        flush=True,
    )
    _set_busy_timeout(db, BUSY_TIMEOUT_S)
    try:
        return action()
    except sqlite3.OperationalError as exc:
        if is_locked(exc):
            raise locked_store(path) from None
        raise
    finally:
        _set_busy_timeout(db, QUIET_WAIT_S)


def _set_busy_timeout(db: sqlite3.Connection, seconds: float) -> None:
    db.execute(f"PRAGMA busy_timeout = {round(seconds * 1000)}")


@contextmanager
def store_for_a_call(path: Path | None = None) -> Iterator[None]:
    """Around opening a call's recording: first another process's write lock is waited for
    (saying so) and a store locked past the wait, or damaged where a call writes first, is
    refused in words, so the call is refused before it dials rather than a moment in;
    then whatever else the store says in the block is said in words too."""
    path = path or store_path()
    # Open until the block has opened its own: the last connection to close checkpoints
    # the store and drops its WAL, which would change what a call then finds on the disk.
    with closing(connect(path)) as db:
        _set_busy_timeout(db, QUIET_WAIT_S)
        try:
            patiently(path, db, lambda: _write_probe(db))
        except sqlite3.DatabaseError as exc:
            raise store_failure(path, exc) from None
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if type(exc) not in (sqlite3.DatabaseError, sqlite3.OperationalError):
                raise  # a mistake of ours (a constraint, a closed connection): not the store's
            raise store_failure(path, exc) from None


def _write_probe(db: sqlite3.Connection) -> None:
    """Take the write lock and read where a call writes first (the index), then let go."""
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("SELECT COUNT(*), MAX(rowid) FROM sessions").fetchone()
    finally:
        db.rollback()


def is_locked(exc: sqlite3.Error) -> bool:
    """SQLite failed because another connection holds a lock it needs."""
    code = getattr(exc, "sqlite_errorcode", -1) & 0xFF
    return code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def store_failure(path: Path, exc: sqlite3.Error) -> StoreError:
    """What SQLite's failure on the store at ``path`` means, in words with what to do."""
    if is_full(exc):  # the store is fine; the disk under it has no room
        return full_disk(path.parent)
    if is_locked(exc):
        return locked_store(path)
    if is_damage(exc):
        return damaged_store(path, exc)
    return StoreError(
        f"the session store {path} cannot be read ({exc}). Move it aside to start a new "
        "one; the sessions in it are not readable by this build."
    )


def locked_store(path: Path) -> StoreError:
    """The refusal when another process holds the store past :data:`BUSY_TIMEOUT_S`."""
    return StoreError(
        f"the session store {path} is still locked by another process after "
        f"{BUSY_TIMEOUT_S:.0f} s (a program holding it open: a database browser, a backup, "
        "a sandbox that hangs): close that program, then try again; nothing was changed"
    )


def damaged_store(path: Path, exc: sqlite3.Error) -> StoreError:
    """The refusal when the store's file is damaged: what can still be read, what to do."""
    readable = readable_sessions(path)
    yourself = f"or move {path.name} aside yourself: the next call starts a new store"
    if readable is None or readable == 0:
        still = "" if readable is None else "; no session in it can still be read"
        todo = (
            "`sandbox sessions repair` keeps whatever still reads in a fresh store and moves "
            f"the damaged one aside ({yourself})"
        )
    else:
        still = f"; {readable:,} session{'s' if readable != 1 else ''} in it can still be read"
        todo = (
            f"`sandbox sessions repair` copies {'them' if readable != 1 else 'it'} into a "
            f"fresh store and moves the damaged one aside ({yourself})"
        )
    return StoreError(
        f"the session store {path} is damaged and cannot be read whole ({exc}){still}. {todo}."
    )


def readable_sessions(path: Path) -> int | None:
    """How many sessions' index rows in the store at ``path`` still read, whole and of
    their columns' kinds, around damaged pages (None: the file does not open at all)."""
    try:
        with closing(read_only(path)) as db:
            rows = readable_rows(db, "sessions", SESSION_COLUMNS, Scan())
            return sum(isinstance(session_row(values), SessionRow) for values in rows)
    except sqlite3.Error:
        return None


def read_only(path: Path) -> sqlite3.Connection:
    """The store at ``path`` opened to read and never write (no checkpoint, no recovery
    written back): what a damaged store is read through."""
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=QUIET_WAIT_S)


@contextmanager
def opening(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on the store's folder while the store is opened.

    The folder, not the database: closing any descriptor of the database file would drop
    the POSIX locks SQLite holds on it in this process, and a reader closing last would
    then checkpoint and remove a live writer's WAL.
    """
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def is_full(exc: sqlite3.Error) -> bool:
    """SQLite failed because the disk (or its quota) is full."""
    return exc.sqlite_errorcode & 0xFF == sqlite3.SQLITE_FULL


def full_disk(folder: Path) -> StoreError:
    """The refusal when the disk holding ``folder`` has no room left."""
    return StoreError(f"the disk holding {folder} is full: free some space, then try again")


def _migrate(db: sqlite3.Connection, path: Path) -> None:
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        db.close()
        raise StoreError(
            f"the session store {path} was written by a newer sandbox (layout {version}; "
            f"this one reads up to {SCHEMA_VERSION}). Upgrade the sandbox to read it."
        )
    for step in range(version, SCHEMA_VERSION):
        with db:
            db.executescript(f"BEGIN; {_MIGRATIONS[step]} PRAGMA user_version = {step + 1};")


def _guarded(
    method: Callable[Concatenate[SessionStore, _P], _T],
) -> Callable[Concatenate[SessionStore, _P], _T]:
    """A store method whose failures are said in words: another process's lock waited for
    (:func:`patiently`), a damaged, locked or full store refused (:func:`store_failure`)."""

    @functools.wraps(method)
    def guarded(store: SessionStore, /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        try:
            return patiently(store.path, store._db, lambda: method(store, *args, **kwargs))
        except sqlite3.DatabaseError as exc:
            if type(exc) not in (sqlite3.DatabaseError, sqlite3.OperationalError):
                raise  # a mistake of ours (a constraint, a closed connection): not the store's
            raise store_failure(store.path, exc) from None

    return guarded


class SessionStore:
    """Reading the store: list, find by id prefix, frames and events, delete, prune. A row
    whose values are not of their columns' kinds reads as damaged, never as a crash."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or store_path()
        self._db = connect(self.path)
        _set_busy_timeout(self._db, QUIET_WAIT_S)  # then said, and waited for: _guarded

    def close(self) -> None:
        """Release the database."""
        self._db.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @_guarded
    def sessions(
        self,
        *,
        brain: str | None = None,
        outcome: str | None = None,
        since: float | None = None,
        tests: bool | None = None,
    ) -> list[SessionRow]:
        """Sessions newest first, filtered by brain URL (substring), outcome, start time and
        whether a test run recorded them (``tests``: only those, False: none of those, None:
        either); a damaged index row is left out (:meth:`damaged_rows` names it)."""
        rows = [
            row
            for values in self._db.execute(
                f"SELECT {_ROW_COLUMNS} FROM sessions ORDER BY started_at DESC"
            )
            if isinstance(row := session_row(values), SessionRow)
        ]
        return [
            row
            for row in rows
            if (brain is None or brain in row.brain_url)
            and (outcome is None or row.status == outcome)
            and (since is None or row.started_at >= since)
            and (tests is None or (row.origin == TEST_ORIGIN) == tests)
        ]

    @_guarded
    def damaged_rows(self) -> list[DamagedRow]:
        """The sessions whose index rows are damaged, which :meth:`sessions` leaves out."""
        return [
            row
            for values in self._db.execute(f"SELECT {_ROW_COLUMNS} FROM sessions")
            if isinstance(row := session_row(values), DamagedRow)
        ]

    @_guarded
    def find(self, prefix: str) -> SessionRow:
        """The one session whose id starts with ``prefix``; StoreError if none or several,
        or if the one it names is damaged."""
        key = prefix.strip().lower()
        if not key:
            raise StoreError("name a session: its id, or the first characters of it")
        found = [
            session_row(values)
            for values in self._db.execute(
                f"SELECT {_ROW_COLUMNS} FROM sessions WHERE id LIKE ? ESCAPE '\\'",
                (_escaped(key) + "%",),
            )
        ]
        if not found:
            raise StoreError(f"no session {quoted(prefix)}; `sandbox sessions list` shows them")
        if len(found) > 1:
            ids = ", ".join(sorted(_short_id(row) for row in found))
            raise StoreError(
                f"{quoted(prefix)} names {len(found)} sessions ({ids}): give more of it"
            )
        (row,) = found
        if isinstance(row, DamagedRow):
            raise StoreError(
                f"session {row.shown_id} is damaged in the store: {row.why}. "
                "`sandbox sessions repair` moves the store aside, keeping every session that "
                "reads in a fresh one"
            )
        return row

    @_guarded
    def frames(self, session_id: str) -> list[StoredFrame]:
        """Every frame of a session, in the order it crossed; a StoreError if one of its
        rows is damaged (a value not of its column's kind)."""
        return [
            _frame(session_id, *values)
            for values in self._db.execute(
                "SELECT seq, t_ms, dir, raw FROM frames WHERE session_id = ? ORDER BY seq",
                (session_id,),
            )
        ]

    @_guarded
    def events(self, session_id: str) -> list[StoredEvent]:
        """Every runtime event of a session, in the order it happened. One whose data is
        damaged (not a JSON object) reads as kind ``unreadable``, saying what it was; one
        whose order, time or kind is damaged is a StoreError."""
        return [
            _event(session_id, *values)
            for values in self._db.execute(
                "SELECT seq, t_ms, kind, data FROM events WHERE session_id = ? ORDER BY seq",
                (session_id,),
            )
        ]

    @_guarded
    def first_event(self, session_id: str, kind: str) -> Recorded | DamagedEvent | None:
        """A session's first event of ``kind`` (None: it has none), without reading the rest
        of its events."""
        found = self._db.execute(
            "SELECT data FROM events WHERE session_id = ? AND kind = ? ORDER BY seq LIMIT 1",
            (session_id, kind),
        ).fetchone()
        if found is None:
            return None
        parsed = _json_object(found[0])
        return read_event(*((kind, parsed) if parsed is not None else _unreadable(kind)))

    @_guarded
    def put_event(self, session_id: str, t_ms: int, value: Recorded) -> None:
        """Keep ``value`` as the session's one event of its kind, after every other: a
        judgement made once the call is over (``sandbox audit``'s), which a second run
        replaces rather than repeats."""
        kind, data = event_row(value)
        with self._db:
            self._db.execute(
                "DELETE FROM events WHERE session_id = ? AND kind = ?", (session_id, kind)
            )
            self._db.execute(
                "INSERT INTO events (session_id, seq, t_ms, kind, data) VALUES (?, "
                "(SELECT COALESCE(MAX(seq), -1) + 1 FROM events WHERE session_id = ?), ?, ?, ?)",
                (session_id, session_id, t_ms, kind, json.dumps(data, ensure_ascii=False)),
            )

    @_guarded
    def report(self, session_id: str) -> dict[str, Any] | None:
        """The report the call wrote when it ended, or None if it never ended."""
        row = self._db.execute("SELECT report FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if not row or not row[0]:
            return None
        report = _json_object(row[0])
        if report is None:
            raise StoreError(
                f"the stored report of session {session_id} is damaged (not a JSON object); "
                "its frames and events are intact: `sandbox replay` still reads them"
            )
        return report

    def running(self, row: SessionRow) -> bool:
        """Whether the call is still in progress: it has not ended, and the process recording
        it still holds its lock. A call whose process died (killed, crashed) has not ended
        either, but nobody holds its lock any more."""
        return row.outcome is None and is_running(self.path, row.id)

    def crashed(self, row: SessionRow) -> bool:
        """Whether the call's process died mid-call: it never ended, nobody holds its lock,
        and its recording had not stopped before (a full disk stops the recording, not the
        call: what happened after it is unknown, not a crash)."""
        return row.outcome is None and row.recording_stopped is None and not self.running(row)

    @_guarded
    def delete(self, session_id: str) -> Removed:
        """Remove a session: its frames, its events, its index row and its audio legs. A call
        still in progress is refused in words (its process is writing it)."""
        ended = self._db.execute(
            "SELECT outcome IS NOT NULL FROM sessions WHERE id = ?", (session_id,)
        ).fetchone()
        if ended is not None and not ended[0] and is_running(self.path, session_id):
            raise StoreError(
                f"session {short_id(session_id)} is a call still in progress: hang it up first, "
                "then remove it"
            )
        return self._remove([session_id])

    @_guarded
    def prune(self, older_than_s: float, now: Callable[[], float] = time.time) -> Removed:
        """Remove every session that started more than ``older_than_s`` ago, but a call still
        in progress (named in ``Removed.in_progress``)."""
        cutoff = now() - older_than_s
        old = [row for row in self.sessions() if row.started_at < cutoff]
        busy = [row.id for row in old if self.running(row)]
        removed = self._remove([row.id for row in old if row.id not in busy])
        return Removed(removed.ids, removed.audio_bytes, removed.stored_bytes, busy)

    def _remove(self, ids: list[str]) -> Removed:
        stored = 0
        with self._db:
            for session_id in ids:
                stored += self._stored_bytes(session_id)
                self._db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
        # The row goes first: a crash in between leaves legs nobody lists, not a row whose
        # audio is gone.
        audio = sum(remove_legs(session_id) for session_id in ids)
        for session_id in filter(plain_id, ids):  # the lock file a killed call left behind
            running_mark(self.path, session_id).unlink(missing_ok=True)
        return Removed(ids, audio, stored, [])

    def _stored_bytes(self, session_id: str) -> int:
        """The bytes a session holds inside the store: frames, events and its report."""
        row = self._db.execute(
            "SELECT (SELECT COALESCE(SUM(LENGTH(raw)), 0) FROM frames WHERE session_id = ?1)"
            " + (SELECT COALESCE(SUM(LENGTH(CAST(data AS BLOB))), 0) FROM events"
            "    WHERE session_id = ?1)"
            " + (SELECT COALESCE(LENGTH(CAST(report AS BLOB)), 0) FROM sessions WHERE id = ?1)",
            (session_id,),
        ).fetchone()
        return int(row[0] or 0)


@dataclass(frozen=True)
class Removed:
    """What removing sessions freed."""

    ids: list[str]
    #: The audio legs' files: freed on disk.
    audio_bytes: int
    #: Frames, events and reports inside the store: free for the store to reuse (the file
    #: itself does not shrink).
    stored_bytes: int
    #: Sessions left alone because their calls are still in progress.
    in_progress: list[str]


# ------------------------------------------------------- a call in progress


def running_mark(store: Path, session_id: str) -> Path:
    """The lock file a call in progress holds, in the folder beside the store."""
    return store.parent / RUNNING_DIR / f"{session_id}.lock"


class RunningLock:
    """Held by the process recording a session for as long as its call runs.

    An OS lock (``flock``), not a pid in a row: the kernel lets go of it the moment the
    process dies, however it dies, so a reader tells a call in progress (locked) from one
    whose process was killed (the file left behind, unlocked) without guessing at pids.
    """

    def __init__(self, store: Path, session_id: str) -> None:
        """Take the lock (a new file, so nobody else holds it)."""
        self._path = running_mark(store, session_id)
        try:
            private_folder(self._path.parent)
            self._fd = os.open(self._path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError as exc:
            raise StoreError(
                f"the call cannot be recorded: {self._path.parent} cannot be written "
                f"({exc.strerror or exc})"
            ) from None
        fcntl.flock(self._fd, fcntl.LOCK_EX)

    def release(self) -> None:
        """The call ended: its index says so, and the lock file goes."""
        self._path.unlink(missing_ok=True)
        os.close(self._fd)


def is_running(store: Path, session_id: str) -> bool:
    """Whether a live process holds the session's lock (see :class:`RunningLock`)."""
    if not plain_id(session_id):
        return False
    try:
        fd = os.open(running_mark(store, session_id), os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False  # no lock file: the call ended, or was recorded by an older build
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def _json_object(text: object) -> dict[str, Any] | None:
    """``text`` parsed as a JSON object, or None when it is anything else."""
    try:
        value = json.loads(text) if isinstance(text, str | bytes) else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _frame(session_id: str, seq: object, t_ms: object, way: object, raw: object) -> StoredFrame:
    """A stored frame's row, or a StoreError when a value is not of its column's kind."""
    if not (_whole(seq) and _whole(t_ms) and isinstance(way, str) and isinstance(raw, bytes)):
        raise damaged_session(session_id, f"a frame's row ({_shown_values(seq, t_ms, way)})")
    return StoredFrame(seq, t_ms, way, raw)


def _event(session_id: str, seq: object, t_ms: object, kind: object, data: object) -> StoredEvent:
    """A stored event's row: its data not a JSON object reads as ``unreadable``; its order,
    time or kind not of their kinds is a StoreError."""
    if not (_whole(seq) and _whole(t_ms) and isinstance(kind, str)):
        raise damaged_session(session_id, f"an event's row ({_shown_values(seq, t_ms, kind)})")
    parsed = _json_object(data)
    if parsed is None:
        return StoredEvent(seq, t_ms, *_unreadable(kind))
    return StoredEvent(seq, t_ms, kind, parsed)


def _unreadable(kind: str) -> tuple[str, dict[str, Any]]:
    """The row an event whose data is not a JSON object reads as, naming its kind."""
    return UNREADABLE, {"kind": kind, "detail": "not a JSON object"}


def damaged_session(session_id: str, what: str) -> StoreError:
    """The refusal when one of a session's rows holds a value not of its column's kind."""
    return StoreError(
        f"session {shown_id(session_id)} is damaged in the store: {what} holds a value that "
        "is not of its kind. `sandbox sessions repair` moves the store aside, keeping every "
        "row that reads in a fresh one"
    )


def _shown_values(*values: object) -> str:
    """A damaged row's leading values, short and printable (order, time, and the next)."""
    return visible(", ".join(repr(v)[:20] for v in values))


def _short_id(row: SessionRow | DamagedRow) -> str:
    return short_id(row.id if isinstance(row, SessionRow) else row.shown_id)


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
