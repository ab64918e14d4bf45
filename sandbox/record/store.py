"""The session store: every call as it happened, in one SQLite database (WAL mode).

A session is its index row, every frame's raw envelope bytes both ways with its time and
direction, and the runtime's own events on the same clock. Raw bytes, not decoded text,
so a later build re-decodes what crossed and nothing is lost. The schema is versioned
(``PRAGMA user_version``): an older store is migrated forward, a newer one is refused in
words. The files are private to the user: they hold what a caller said.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox.errors import UserError
from sandbox.paths import data_dir
from sandbox.private_files import private_files, private_folder
from sandbox.record.legs import plain_id, remove_legs

#: The layout this build writes and reads. Each entry of _MIGRATIONS moves one version up.
SCHEMA_VERSION = 2
STORE_FILE = "sessions.db"
#: How long a reader or writer waits for another process's write lock.
BUSY_TIMEOUT_S = 10.0
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
)


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
    leg: str
    mode: str
    app_version: str
    wire_version: int
    outcome: str | None
    ended_by: str | None
    end_detail: str | None
    duration_ms: int | None
    caller_turns: int | None
    units: int | None
    cuts: int | None
    errors: int | None
    recording_stopped: str | None
    redrive_of: str | None  # the session whose caller side this one re-drove

    @property
    def status(self) -> str:
        """The outcome, or ``unfinished`` for a call that never reached its end."""
        return self.outcome or "unfinished"


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
    """One of the runtime's own events (a word played, a barge-in, a notice...)."""

    seq: int
    t_ms: int
    kind: str
    data: dict[str, Any]


_ROW_COLUMNS = ", ".join(SessionRow.__dataclass_fields__)


def store_path() -> Path:
    """Where the store lives: ``<data dir>/sessions.db``."""
    return data_dir() / STORE_FILE


def connect(path: Path | None = None) -> sqlite3.Connection:
    """Open (creating if need be) the store at ``path``, migrated to this build's layout."""
    path = path or store_path()
    try:
        private_folder(path.parent)
        # The database, its WAL and shared-memory files are private; opening is one process
        # at a time, so a fresh store is made once (two processes both reading layout 0
        # used to both migrate, and the loser's call went unrecorded).
        with private_files(), _opening(path):
            db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            _migrate(db, path)
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise full_disk(path.parent) from None
        raise StoreError(
            f"the session store {path} cannot be opened ({exc.strerror or exc}): check that "
            "its folder is yours and writable"
        ) from None
    except sqlite3.DatabaseError as exc:
        if is_full(exc):  # the store is fine; the disk under it has no room
            raise full_disk(path.parent) from None
        raise StoreError(
            f"the session store {path} cannot be read ({exc}). Move it aside to start a new "
            "one; the sessions in it are not readable by this build."
        ) from None
    return db


@contextmanager
def _opening(path: Path) -> Iterator[None]:
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


class SessionStore:
    """Reading the store: list, find by id prefix, frames and events, delete, prune."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or store_path()
        self._db = connect(self.path)

    def close(self) -> None:
        """Release the database."""
        self._db.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def sessions(
        self, *, brain: str | None = None, outcome: str | None = None, since: float | None = None
    ) -> list[SessionRow]:
        """Sessions newest first, filtered by brain URL (substring), outcome and start time."""
        rows = [
            SessionRow(*row)
            for row in self._db.execute(
                f"SELECT {_ROW_COLUMNS} FROM sessions ORDER BY started_at DESC"
            )
        ]
        return [
            row
            for row in rows
            if (brain is None or brain in row.brain_url)
            and (outcome is None or row.status == outcome)
            and (since is None or row.started_at >= since)
        ]

    def find(self, prefix: str) -> SessionRow:
        """The one session whose id starts with ``prefix``; StoreError if none or several."""
        key = prefix.strip().lower()
        if not key:
            raise StoreError("name a session: its id, or the first characters of it")
        found = [
            SessionRow(*row)
            for row in self._db.execute(
                f"SELECT {_ROW_COLUMNS} FROM sessions WHERE id LIKE ? ESCAPE '\\'",
                (_escaped(key) + "%",),
            )
        ]
        if not found:
            raise StoreError(f"no session {prefix!r}; `sandbox sessions list` shows them")
        if len(found) > 1:
            ids = ", ".join(sorted(row.id[:12] for row in found))
            raise StoreError(f"{prefix!r} names {len(found)} sessions ({ids}): give more of it")
        return found[0]

    def frames(self, session_id: str) -> list[StoredFrame]:
        """Every frame of a session, in the order it crossed."""
        return [
            StoredFrame(*row)
            for row in self._db.execute(
                "SELECT seq, t_ms, dir, raw FROM frames WHERE session_id = ? ORDER BY seq",
                (session_id,),
            )
        ]

    def events(self, session_id: str) -> list[StoredEvent]:
        """Every runtime event of a session, in the order it happened. One whose data is
        damaged (not a JSON object) reads as kind ``unreadable``, saying what it was."""
        return [
            _event(seq, t_ms, kind, data)
            for seq, t_ms, kind, data in self._db.execute(
                "SELECT seq, t_ms, kind, data FROM events WHERE session_id = ? ORDER BY seq",
                (session_id,),
            )
        ]

    def first_event(self, session_id: str, kind: str) -> dict[str, Any] | None:
        """The data of a session's first event of ``kind`` (None: it has none), without
        reading the rest of its events."""
        found = self._db.execute(
            "SELECT seq, t_ms, kind, data FROM events WHERE session_id = ? AND kind = ? "
            "ORDER BY seq LIMIT 1",
            (session_id, kind),
        ).fetchone()
        return None if found is None else _event(*found).data

    def put_event(self, session_id: str, t_ms: int, kind: str, data: dict[str, Any]) -> None:
        """Keep ``data`` as the session's one event of ``kind``, after every other: a
        judgement made once the call is over (``sandbox audit``'s), which a second run
        replaces rather than repeats."""
        with self._db:
            self._db.execute(
                "DELETE FROM events WHERE session_id = ? AND kind = ?", (session_id, kind)
            )
            self._db.execute(
                "INSERT INTO events (session_id, seq, t_ms, kind, data) VALUES (?, "
                "(SELECT COALESCE(MAX(seq), -1) + 1 FROM events WHERE session_id = ?), ?, ?, ?)",
                (session_id, session_id, t_ms, kind, json.dumps(data, ensure_ascii=False)),
            )

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

    def delete(self, session_id: str) -> Removed:
        """Remove a session: its frames, its events, its index row and its audio legs. A call
        still in progress is refused in words (its process is writing it)."""
        ended = self._db.execute(
            "SELECT outcome IS NOT NULL FROM sessions WHERE id = ?", (session_id,)
        ).fetchone()
        if ended is not None and not ended[0] and is_running(self.path, session_id):
            raise StoreError(
                f"session {session_id[:12]} is a call still in progress: hang it up first, "
                "then remove it"
            )
        return self._remove([session_id])

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


def _event(seq: int, t_ms: int, kind: str, data: object) -> StoredEvent:
    parsed = _json_object(data)
    if parsed is None:
        return StoredEvent(seq, t_ms, "unreadable", {"kind": kind, "detail": "not a JSON object"})
    return StoredEvent(seq, t_ms, kind, parsed)


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
