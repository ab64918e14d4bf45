"""What the fuzzer found, in words: each escape it turned up, as a readable case.

The raw inputs are kept in tests/fuzz_cases/; these say what each one meant.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sandbox.caller.script import parse_script
from sandbox.errors import UserError
from sandbox.record.export import session_report_json
from sandbox.record.store import SessionStore, StoreError
from sandbox.replay.timeline import RecordNote, Replayer

SESSION = "0f0e0d0c-0b0a-4908-8706-050403020100"


@pytest.mark.parametrize(
    ("step", "words"),
    [
        ('rtvi = { type = "ui-event", data = 1979-05-27 }', "plain JSON values"),
        ('rtvi = { type = "ui-event", data = { at = 07:32:00 } }', "plain JSON values"),
        ('rtvi = { type = "ui-event", data = { x = nan } }', "plain JSON values"),
        ('rtvi = { type = "ui-event", id = 3 }', "an rtvi id is a string"),
        ("silence_ms = true", "silence_ms must be a whole number"),
        ('barge_in = "wait"\nafter_words = true', "after_words must be a whole number"),
    ],
)
def test_a_script_value_of_the_wrong_kind_is_refused_in_words(step: str, words: str) -> None:
    with pytest.raises(UserError, match=words):
        parse_script(f"[[step]]\n{step}\n")


def test_ms_per_word_true_is_not_one_millisecond() -> None:
    with pytest.raises(UserError, match="ms_per_word must be a positive whole number"):
        parse_script('ms_per_word = true\n[[step]]\nsay = "hi"\n')


def _store_with(tmp_path: Path, *, report: str | None, started_at: float = 1.8e9) -> Path:
    path = tmp_path / "sessions.db"
    SessionStore(path).close()
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO sessions (id, started_at, brain_url, leg, mode, app_version, "
            "wire_version, report) VALUES (?, ?, 'ws://x', 'direct', 'sim', '0.1.0', 3, ?)",
            (SESSION, started_at, report),
        )
        rows = [(0, "caller_shown", '{"kind": "spoken"}'), (1, "state_changed", "not json")]
        db.executemany(
            "INSERT INTO events (session_id, seq, t_ms, kind, data) VALUES (?, ?, 10, ?, ?)",
            [(SESSION, *row) for row in rows],
        )
    return path


def test_a_damaged_event_reads_as_unreadable_and_the_replay_says_so(tmp_path: Path) -> None:
    with SessionStore(_store_with(tmp_path, report=None)) as store:
        events = store.events(SESSION)
    assert [e.kind for e in events] == ["caller_shown", "unreadable"]
    assert events[1].data == {"kind": "state_changed", "detail": "not a JSON object"}
    replayer = Replayer([], events)
    replayer.seek(10)
    notes = [e.words for e in replayer.view.entries if isinstance(e, RecordNote)]
    assert len(notes) == 2  # each damaged row is said, and the replay goes on
    assert notes[0].startswith("a recorded caller_shown event could not be read")
    assert notes[1] == "a recorded state_changed event could not be read (not a JSON object)"


def test_a_damaged_stored_report_is_refused_in_words(tmp_path: Path) -> None:
    with (
        SessionStore(_store_with(tmp_path, report="[]")) as store,
        pytest.raises(StoreError, match=r"report of session .* is damaged"),
    ):
        store.report(SESSION)


def test_a_start_time_out_of_range_does_not_keep_the_frames_from_reading(
    tmp_path: Path,
) -> None:
    with SessionStore(_store_with(tmp_path, report=None, started_at=1e20)) as store:
        report = session_report_json(store, store.find(SESSION[:8]))
    assert report["started_at"] == ""
    assert report["outcome"] == "unfinished"
