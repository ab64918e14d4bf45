"""Every report a test saves is checked against the published schema (``sandbox schema
report``): the store's, and the files in the data dir's sessions folder."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from sandbox.call.effects import EndedBy
from sandbox.call.outcome import Outcome
from sandbox.record.frame_report import FrameReport, decoded
from sandbox.record.report import REPORT_VERSION, Report, report_schema


@cache
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(report_schema())


def saved_reports(home: Path) -> list[tuple[str, Any]]:
    """(where, JSON) of every report the app saved under ``home``; a hand-made stand-in a
    test stored without a ``report_version`` is no report the app wrote, and is left out."""
    found: list[tuple[str, Any]] = []
    db_path = home / "sessions.db"
    if db_path.exists():
        db = sqlite3.connect(db_path)
        try:
            rows = db.execute("SELECT id, report FROM sessions WHERE report IS NOT NULL")
            found += [(f"stored report of {sid}", _json(text)) for sid, text in rows]
        except sqlite3.DatabaseError:
            pass  # a test that damages the store on purpose
        finally:
            db.close()
    for path in sorted((home / "sessions").glob("*.json")):
        found.append((str(path), _json(path.read_bytes())))
    return [
        (where, data)
        for where, data in found
        if isinstance(data, dict) and "report_version" in data
    ]


def _json(text: str | bytes) -> Any:
    """``text`` parsed, or None for a row a test damaged on purpose (not JSON)."""
    try:
        return json.loads(text)
    except (ValueError, TypeError):
        return None


def check_saved_reports(home: Path) -> None:
    """Fail, naming the report and the first error, if any saved report breaks the schema."""
    for where, data in saved_reports(home):
        error = jsonschema.exceptions.best_match(_validator().iter_errors(data))
        if error is not None:
            raise AssertionError(f"{where} breaks the report schema: {error.message}")


def bare_report(frames: Sequence[Mapping[str, Any]] = (), **fields: Any) -> Report:
    """A report holding only ``frames`` (as the report's JSON holds them) and ``fields``: no
    units, no record, every text empty, a completed call the caller ended (for the printers,
    which read a report whatever call it came from)."""
    empty: dict[str, Any] = {
        "report_version": REPORT_VERSION,
        "session_id": "",
        "brain_url": "",
        "started_at": "",
        "outcome": Outcome.COMPLETED,
        "ended_by": EndedBy.CALLER,
        "end_detail": "",
        "settings": "",
        "watermark": 0,
        "caller_turns": (),
        "units": (),
        "steps": (),
        "errors": (),
        "alignment_skips": 0,
    }
    return Report(**{**empty, **fields, "frames": tuple(_frame(f) for f in frames)})


def _frame(frame: Mapping[str, Any] | FrameReport) -> FrameReport:
    """A frame as a test writes it (its report JSON), as the report keeps it."""
    return frame if isinstance(frame, FrameReport) else decoded(dict(frame))
