"""A stored session's report (a :class:`~sandbox.record.report.Report`, the same keys
``sandbox call --report`` writes) and its records, read from the store through
:class:`~sandbox.record.stored_call.StoredCall`, the one loader.
"""

from __future__ import annotations

from typing import Any

from sandbox.record.report import Report
from sandbox.record.store import SessionRow, SessionStore
from sandbox.record.stored_call import StoredCall


def session_records(store: SessionStore, session_id: str) -> list[tuple[int, object]]:
    """A stored session's events with the core's records in them, whatever build stored it
    (:attr:`StoredCall.records`), each with its moment (ms)."""
    return StoredCall.load(store, store.find(session_id)).timed_records


def session_report(store: SessionStore, row: SessionRow) -> Report:
    """The session's report (:attr:`StoredCall.report`), read from ``store``."""
    return StoredCall.load(store, row).report


def session_report_json(store: SessionStore, row: SessionRow) -> dict[str, Any]:
    """The session's report as a JSON object to write out (:attr:`StoredCall.report_json`)."""
    return StoredCall.load(store, row).report_json
