"""Fuzz target for the session-store reader: a stored session whose rows say anything.

Each input writes one session into a real store (SQLite, the build's own layout): frames
whose raw bytes are envelopes or not, with any direction and time; events of every kind
the runtime stores (and unknown ones) whose data has fields missing, extra or of another
type, or is not JSON at all; and a stored report that is right, wrong or absent. Then
every reader runs: find by prefix, frames, events, the report (rebuilt from frames when
none was stored) and the replay timeline, seeked to the end and back. Each must read the
session or refuse it in words (a UserError), never fail another way.
"""

from __future__ import annotations

import atexit
import functools
import json
import shutil
import sqlite3
import tempfile
from pathlib import Path

from sandbox.errors import UserError
from sandbox.record.export import session_report
from sandbox.record.store import SessionStore
from sandbox.replay.source import open_recording
from sandbox.wire.codec import encode
from sandbox_fuzz.draw import Draw
from sandbox_fuzz.envelopes import arbitrary_envelope

SESSION = "0f0e0d0c-0b0a-4908-8706-050403020100"
_KINDS = (
    "word_played",
    "unit_played",
    "unit_unspoken",
    "state_changed",
    "caller_shown",
    "caller_idle",
    "call_ended",
    "to_app",
    "config_applied",
    "protocol_violation",
    "frame_dropped",
    "brain_error",
    "brain_stalled",
    "step_for_unknown_turn",
    "config_rejected",
    "app_frame_refused",
    "entity_heard",
    "entity_readback",
    "name_refused",
    "name_not_from_caller",
    "called_the_caller",
    "promised_unbooked",
    "barge_in",
    "something_new",
)
_KEYS = (
    "speech_id",
    "word",
    "reason",
    "state",
    "kind",
    "text",
    "turn_id",
    "resumed",
    "level",
    "idle_ms",
    "outcome",
    "ended_by",
    "detail",
    "type",
    "data",
    "id",
    "settings",
    "code",
    "message",
    "fatal",
    "waited_ms",
    "name",
    "problem",
    "value",
    "turn",
    "status",
    "other",
)
_VALUES: tuple[object, ...] = (
    0,
    1,
    -1,
    2**70,
    1.5,
    "",
    "hello",
    "speaking",
    None,
    True,
    [],
    {},
    {"voice": 1, "idle_ms": "x"},
    {"nope": 1},
)
_REPORTS = (
    None,
    "not json",
    "[]",
    "5",
    '{"report_version": 1, "units": "x"}',
    '{"report_version": 99}',
)
_DIRS = ("in", "out", "sideways")
_MODES = ("sim", "typed", "audio", "other")


@functools.cache
def _store() -> tuple[Path, sqlite3.Connection, SessionStore]:
    """One store per process: a scratch file, a raw connection that writes whatever an
    input says, and the reader under test."""
    folder = Path(tempfile.mkdtemp(prefix="sandbox-fuzz-store-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = folder / "sessions.db"
    reader = SessionStore(path)
    return path, sqlite3.connect(path), reader


def fuzz_store(data: bytes) -> None:
    """See the module doc."""
    draw = Draw(data)
    _, raw, store = _store()
    with raw:
        raw.execute("DELETE FROM frames")
        raw.execute("DELETE FROM events")
        raw.execute("DELETE FROM sessions")
        _write_session(raw, draw)
    try:
        row = store.find(SESSION[: draw.number(1, len(SESSION))])
        store.frames(row.id)
        store.events(row.id)
        session_report(store, row)
        recording = open_recording(row.id, store)
        recording.replayer.seek(recording.duration_ms)
        recording.replayer.seek(0)
    except UserError:
        return


def _write_session(raw: sqlite3.Connection, draw: Draw) -> None:
    ended = draw.flip()
    raw.execute(
        "INSERT INTO sessions (id, started_at, ended_at, brain_url, leg, mode, app_version, "
        "wire_version, outcome, duration_ms, report) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            SESSION,
            draw.pick((0.0, 1_800_000_000.0, -1.0, 1e20)),
            1_800_000_060.0 if ended else None,
            draw.text(30),
            draw.pick(("direct", "relay")),
            draw.pick(_MODES),
            "0.1.0",
            draw.number(0, 5),
            draw.pick(("completed", "no_answer", None)) if ended else None,
            draw.pick((None, 0, 60_000, -5)),
            _report(draw) if ended else None,
        ),
    )
    for seq in range(draw.number(0, 12)):
        payload = encode(arbitrary_envelope(draw)) if draw.number(0, 3) else draw.bytes(40)
        raw.execute(
            "INSERT INTO frames (session_id, seq, t_ms, dir, raw) VALUES (?, ?, ?, ?, ?)",
            (SESSION, seq, _time(draw), draw.pick(_DIRS), payload),
        )
    for seq in range(draw.number(0, 12)):
        raw.execute(
            "INSERT INTO events (session_id, seq, t_ms, kind, data) VALUES (?, ?, ?, ?, ?)",
            (SESSION, seq, _time(draw), draw.pick(_KINDS), _event_data(draw)),
        )


def _time(draw: Draw) -> int:
    if draw.number(0, 7):
        return draw.pick((0, 5, 100, 1000, 60_000, -1))
    return draw.number(-(2**40), 2**40)


def _report(draw: Draw) -> str | None:
    if draw.flip():
        return draw.pick(_REPORTS)
    return json.dumps({draw.pick(_KEYS): draw.pick(_VALUES) for _ in range(draw.number(0, 4))})


def _event_data(draw: Draw) -> str:
    if draw.number(0, 15) == 0:
        return draw.pick(("not json", "[1, 2]", "7", "null", ""))
    return json.dumps({draw.pick(_KEYS): draw.pick(_VALUES) for _ in range(draw.number(0, 5))})
