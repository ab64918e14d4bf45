"""A damaged, locked or doctored session store: said in words with what to do, never an
"unexpected error"; `sandbox sessions repair` keeps what still reads; a lock is waited for,
saying so, then refused; doctored rows read as damaged, their ids escaped."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest
from cli_rig import sandbox_cli
from session_rig import recorded_call

from sandbox.call.effects import EndedBy
from sandbox.call.outcome import Outcome
from sandbox.call.waterfall import STAGES
from sandbox.paths import HOME_ENV
from sandbox.record.latency_text import MAX_TURNS_SHOWN, MAX_WATERFALLS_SHOWN
from sandbox.record.salvage import Scan, readable_rows
from sandbox.record.session_kinds import CallMode, Leg
from sandbox.record.store import (
    QUIET_WAIT_S,
    SESSION_COLUMNS,
    DamagedRow,
    SessionRow,
    SessionStore,
    StoreError,
    connect,
    patiently,
    session_row,
    store_path,
)
from sandbox.record.store_repair import repair_store

PAGE = 4096
SCRIPT_TOML = '[[step]]\nsay = "What are your opening hours?"\n'


def _checkpointed(path: Path) -> None:
    """Everything in the database file itself (a WAL left beside it would mask the damage)."""
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _page_of(path: Path, what: str) -> int:
    """The page (from 1) a table's or an index's root is on."""
    with closing(sqlite3.connect(path)) as db:
        (root,) = db.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = ?", (what,)
        ).fetchone()
    return int(root)


def _damage(path: Path, page: int) -> None:
    """Write over one page, behind the valid header on page 1."""
    assert page > 1
    with path.open("r+b") as file:
        file.seek((page - 1) * PAGE)
        file.write(b"\xa5" * PAGE)


def _page_holding(path: Path, marker: bytes) -> int:
    data = path.read_bytes()
    at = data.index(marker)
    return at // PAGE + 1


async def _two_calls(folder: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv(HOME_ENV, str(folder))
    return [(await recorded_call()).core.session_id for _ in range(2)]


def _no_crash(done: subprocess.CompletedProcess[str]) -> None:
    assert "unexpected error" not in done.stderr and "Traceback" not in done.stderr
    assert "\x1b" not in done.stdout + done.stderr


# ----------------------------------------------------------------- damaged pages


async def test_a_damaged_store_is_said_in_words_and_repaired(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "home"
    ids = await _two_calls(folder, monkeypatch)
    path = store_path()
    _checkpointed(path)
    _damage(path, _page_of(path, "sessions_started"))  # the index `list` reads by
    done = sandbox_cli(folder, "sessions", "list")
    assert done.returncode == 1, done.stdout + done.stderr
    _no_crash(done)
    assert "is damaged and cannot be read whole (database disk image is malformed)" in done.stderr
    assert "2 sessions in it can still be read. `sandbox sessions repair` copies them" in (
        done.stderr
    )
    shown = sandbox_cli(folder, "sessions", "show", ids[0][:8])  # found by id: no index hurt
    assert shown.returncode == 0 and "What are your opening hours?" in shown.stdout
    script = tmp_path / "call.toml"
    script.write_text(SCRIPT_TOML)
    called = sandbox_cli(folder, "call", "--script", str(script))
    assert called.returncode == 1 and "is damaged and cannot be read whole" in called.stderr
    _no_crash(called)

    repaired = sandbox_cli(folder, "sessions", "repair")
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert repaired.stdout.startswith("the session store was damaged (SQLite's check: ")
    assert "  kept 2 sessions, " in repaired.stdout and "lost:" not in repaired.stdout
    (aside,) = folder.glob("sessions.db.damaged-*[0-9]")
    assert f"the damaged store is now {aside}" in repaired.stdout
    listed = sandbox_cli(folder, "sessions", "list")
    assert listed.returncode == 0 and all(sid[:12] in listed.stdout for sid in ids)
    shown = sandbox_cli(folder, "sessions", "show", ids[0][:8])
    assert shown.returncode == 0 and "caller  [turn 2] What are your opening hours?" in shown.stdout
    again = sandbox_cli(folder, "sessions", "repair")
    assert again.stdout == "the session store is not damaged: nothing to repair\n"


async def test_a_store_whose_index_rows_are_lost_says_none_can_be_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "home"
    await _two_calls(folder, monkeypatch)
    path = store_path()
    _checkpointed(path)
    _damage(path, _page_of(path, "sessions"))
    done = sandbox_cli(folder, "sessions", "list")
    assert done.returncode == 1 and "no session in it can still be read" in done.stderr
    repaired = repair_store(path)
    assert repaired.aside is not None and repaired.sessions == 0 and repaired.rows_lost > 0
    with SessionStore(path) as store:
        assert store.sessions() == []  # a fresh store: the next call records into it


def test_a_scan_steps_over_a_damaged_page_and_keeps_the_rows_around_it(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE t (n INTEGER, body BLOB)")
        with db:  # three rows a page: page boundaries are known from the markers
            db.executemany(
                "INSERT INTO t VALUES (?, ?)",
                [(n, f"<row {n:04d}>".encode() + bytes(1200)) for n in range(300)],
            )
    page = _page_holding(path, b"<row 0150>")
    held = path.read_bytes()[(page - 1) * PAGE : page * PAGE]
    on_page = {n for n in range(300) if f"<row {n:04d}>".encode() in held}
    _damage(path, page)
    with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as db:
        with pytest.raises(sqlite3.DatabaseError, match="malformed"):
            db.execute("SELECT n FROM t").fetchall()
        scan = Scan()
        kept = [n for (n,) in readable_rows(db, "t", ["n"], scan)]
    assert set(range(300)) - set(kept) == on_page  # that page's rows, and only they
    assert kept == sorted(kept) and 150 in on_page and len(on_page) == 3
    assert (scan.damaged_stretches, scan.damaged_rows) == (1, 0)


async def test_a_session_whose_stored_report_is_damaged_is_kept_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "home"
    ids = await _two_calls(folder, monkeypatch)
    path = store_path()
    with closing(sqlite3.connect(path)) as db, db:  # a report long enough to overflow
        (text,) = db.execute("SELECT report FROM sessions WHERE id = ?", (ids[0],)).fetchone()
        report = json.loads(text)
        report["script_notes"] = ["<overflow>" + "x" * 30_000]
        db.execute("UPDATE sessions SET report = ? WHERE id = ?", (json.dumps(report), ids[0]))
    _checkpointed(path)
    _damage(path, _page_holding(path, b"x" * 3000))  # one of the report's overflow pages
    repaired = repair_store(path)
    assert (repaired.sessions, repaired.without_report) == (2, 1)
    with SessionStore(path) as store:
        row = store.find(ids[0])
        assert store.report(row.id) is None and store.frames(row.id)  # rebuilt when read
    shown = sandbox_cli(folder, "sessions", "show", ids[0][:8])
    assert shown.returncode == 0 and "What are your opening hours?" in shown.stdout


# ------------------------------------------------------------------------ a lock


@contextmanager
def _held(path: Path, seconds: float) -> Iterator[None]:
    """Another process holding the store exclusively (as a database browser can)."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time\n"
            "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "db.execute('PRAGMA locking_mode=EXCLUSIVE')\n"
            "db.execute('BEGIN EXCLUSIVE'); db.execute('UPDATE sessions SET mode = mode')\n"
            "db.execute('COMMIT'); print('held', flush=True); time.sleep(float(sys.argv[2]))\n",
            str(path),
            str(seconds),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield
    finally:
        holder.kill()
        holder.wait()


async def test_a_call_waits_for_a_locked_store_saying_so_then_is_refused_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "home"
    monkeypatch.setenv(HOME_ENV, str(folder))
    await recorded_call()
    script = tmp_path / "call.toml"
    script.write_text(SCRIPT_TOML)
    with _held(store_path(), 60):
        began = time.monotonic()
        done = sandbox_cli(folder, "call", "--script", str(script))
        took = time.monotonic() - began
    assert done.returncode == 1, done.stdout + done.stderr
    _no_crash(done)
    waiting, refused = done.stderr.splitlines()
    assert waiting.endswith("is locked by another process: waiting up to 10 s for it to let go")
    assert "is still locked by another process after 10 s" in refused
    assert "close that program, then try again; nothing was changed" in refused
    assert 10 <= took < 30
    with SessionStore() as store:
        assert len(store.sessions()) == 1  # refused before it dialed: nothing recorded


@pytest.mark.slow
async def test_a_lock_let_go_within_the_wait_lets_every_reader_and_the_call_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "home"
    monkeypatch.setenv(HOME_ENV, str(folder))
    await recorded_call()
    script = tmp_path / "call.toml"
    script.write_text(SCRIPT_TOML)
    with _held(store_path(), 3):
        listed = sandbox_cli(folder, "sessions", "list")
    assert listed.returncode == 0 and "waiting up to 10 s" in listed.stderr
    with _held(store_path(), 3):
        called = sandbox_cli(folder, "call", "--script", str(script))
    assert called.returncode == 0 and "waiting up to 10 s" in called.stderr, called.stderr
    with SessionStore() as store:
        assert len(store.sessions()) == 2


def test_patiently_says_the_wait_once_and_goes_on_when_the_lock_is_let_go(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sessions.db"
    connect(path).close()
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    threading.Timer(QUIET_WAIT_S + 0.5, holder.rollback).start()
    db = connect(path)
    db.execute(f"PRAGMA busy_timeout = {QUIET_WAIT_S * 1000:.0f}")
    patiently(path, db, lambda: db.execute("BEGIN IMMEDIATE"))
    db.rollback()
    assert capsys.readouterr().err.count("is locked by another process: waiting up to") == 1
    db.close()
    holder.close()


# --------------------------------------------------------------- doctored rows


async def test_doctored_rows_read_as_damaged_with_every_id_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "home"
    monkeypatch.setenv(HOME_ENV, str(folder))
    early, texted, escaped, timed = [(await recorded_call()).core.session_id for _ in range(4)]
    forged = "\x1b]0;pwned\x07" + escaped[9:]
    with closing(sqlite3.connect(store_path())) as db, db:
        db.execute("PRAGMA foreign_keys = OFF")
        db.execute("UPDATE sessions SET started_at = 'yesterday' WHERE id = ?", (early,))
        db.execute("UPDATE sessions SET id = ? WHERE id = ?", (forged, escaped))
        db.execute("UPDATE sessions SET report = NULL WHERE id = ?", (texted,))
        db.execute("UPDATE frames SET t_ms = 'soon' WHERE session_id = ? AND seq = 2", (texted,))
        db.execute("UPDATE events SET t_ms = 'soon' WHERE session_id = ?", (timed,))
    listed = sandbox_cli(folder, "sessions", "list")
    assert listed.returncode == 1
    _no_crash(listed)
    assert texted[:12] in listed.stdout and timed[:12] in listed.stdout
    assert early[:12] not in listed.stdout
    assert "2 sessions not listed: their index rows are damaged." in listed.stderr
    assert f"    {early}: started_at is not a time" in listed.stderr
    assert f"    \\x1b]0;pwned\\x07{escaped[9:]}: its id is not plain text" in listed.stderr
    for sid, words in (
        (early, "is damaged in the store: started_at is not a time"),
        (texted, "is damaged in the store: a frame's row (2, 'soon', "),
    ):
        shown = sandbox_cli(folder, "sessions", "show", sid[:8])
        assert shown.returncode == 1 and words in shown.stderr, shown.stderr
        _no_crash(shown)
    with SessionStore() as store, pytest.raises(StoreError, match="an event's row"):
        store.events(timed)
    # An id is asked for in plain text: a control character is refused at the door, spelt out.
    forged_shown = sandbox_cli(folder, "sessions", "show", "\x1b")
    assert (
        forged_shown.returncode == 2
        and "no control characters (got '\\x1b')" in forged_shown.stderr
    )
    _no_crash(forged_shown)
    repaired = sandbox_cli(folder, "sessions", "repair")
    assert repaired.returncode == 0 and "  set aside: 2 sessions whose index row" in repaired.stdout
    _no_crash(repaired)
    after = sandbox_cli(folder, "sessions", "list")
    assert after.returncode == 0 and after.stderr == ""
    assert texted[:12] in after.stdout and timed[:12] in after.stdout


async def test_a_latency_table_of_200000_turns_shows_the_first_and_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "home"
    monkeypatch.setenv(HOME_ENV, str(folder))
    sid = (await recorded_call()).core.session_id
    with closing(sqlite3.connect(store_path())) as db, db:
        (text,) = db.execute("SELECT report FROM sessions WHERE id = ?", (sid,)).fetchone()
        report = json.loads(text)
        turn = report["turns"][0]
        report["turns"] = [{**turn, "turn_id": n} for n in range(2, 200_002)]
        db.execute("UPDATE sessions SET report = ? WHERE id = ?", (json.dumps(report), sid))
    began = time.monotonic()
    done = sandbox_cli(folder, "sessions", "show", sid[:8], "--latency", timeout=120)
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - began < 60  # it took 2.4 minutes, laying out 200,000 rows
    assert "(the first 500 of 200,000 turns shown; p50 and p90 are over all of them)" in (
        done.stdout
    )
    # The first turns' waterfalls (a dozen lines each at most), then the table's first rows.
    drawn = MAX_WATERFALLS_SHOWN * (len(STAGES) + 4)
    assert len(done.stdout.splitlines()) < drawn + MAX_TURNS_SHOWN + 40


def test_an_index_rows_words_are_its_vocabularies_and_another_word_is_damage() -> None:
    """A row's leg, mode, outcome and ended_by read as their enums; a word outside one (a
    doctored row) is a damaged row that says which column and which words it may hold."""
    values = dict.fromkeys(SESSION_COLUMNS)
    values |= {"id": "0123456789abcdef", "started_at": 0.0, "brain_url": "ws://x"}
    values |= {"leg": "relay", "mode": "audio", "app_version": "0", "wire_version": 3}
    values |= {"outcome": "completed", "ended_by": "dial_failed"}
    row = session_row(tuple(values.values()))
    assert isinstance(row, SessionRow)
    assert (row.leg, row.mode) == (Leg.RELAY, CallMode.AUDIO)
    assert (row.outcome, row.ended_by) == (Outcome.COMPLETED, EndedBy.DIAL_FAILED)
    assert type(row.mode) is CallMode and type(row.outcome) is Outcome
    unfinished = session_row(tuple((values | {"outcome": None, "ended_by": None}).values()))
    assert isinstance(unfinished, SessionRow) and unfinished.status == Outcome.UNFINISHED
    damaged = session_row(tuple((values | {"mode": "\x1b[2Jdemo"}).values()))
    assert damaged == DamagedRow(
        "0123456789abcdef", "mode '\\x1b[2Jdemo' is not one of sim, typed, audio"
    )
