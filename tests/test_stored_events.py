"""Stored events are typed at the store's boundary, and the call record's findings are too."""

from __future__ import annotations

import ast
import json
import typing
from pathlib import Path

import pytest
from checkout import package_files
from report_check import bare_report
from session_rig import recorded_call

from sandbox.call.effects import Effect, SendFrame, UnitChanged
from sandbox.call.outcome import Outcome
from sandbox.record.input_log import StoredInput
from sandbox.record.report import (
    CallRecord,
    Finding,
    NameRefused,
    ReportError,
    finding_kind,
    report_from_json,
    report_json,
    report_schema,
)
from sandbox.record.store import SessionStore, StoredEvent
from sandbox.record.stored_events import (
    EVENT_TYPES,
    DamagedEvent,
    event_row,
    kind_of,
    read_event,
)
from sandbox.replay.timeline import RecordNote, Replayer


async def test_every_event_a_call_stores_reads_as_its_type_and_round_trips(home: Path) -> None:
    host = await recorded_call()
    with SessionStore() as store:
        events = store.events(host.core.session_id)
    assert events
    for event in events:
        value = event.value
        assert type(value) is EVENT_TYPES[event.kind], event
        assert value is not None and not isinstance(value, DamagedEvent)
        kind, data = event_row(value)
        assert (kind, json.loads(json.dumps(data))) == (event.kind, event.data)  # as written


def test_every_kind_the_host_stores_is_registered() -> None:
    """What the host hands the recorder whole: every input it feeds the core (a frame and a
    settings change as their stored forms), the effects (not frames nor redraws) and the
    call record's findings."""
    stored = [
        *typing.get_args(StoredInput),
        *(t for t in typing.get_args(Effect) if t not in (SendFrame, UnitChanged)),
        *typing.get_args(Finding),
    ]
    for cls in stored:
        assert EVENT_TYPES[kind_of(cls)] is cls
    for cls in typing.get_args(Finding):
        assert kind_of(cls) == finding_kind(cls)


def test_every_event_call_site_stores_a_typed_value() -> None:
    """A static look at every ``.event(`` and ``put_event(`` in the package: none stores a
    kind given as text, and each value named at the site is a registered type."""
    registered = {cls.__name__ for cls in EVENT_TYPES.values()}
    sites = 0
    for _name, path in package_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr not in ("event", "put_event") or path.name == "writer.py":
                continue
            sites += 1
            value = node.args[-1]
            assert not isinstance(value, ast.Constant | ast.Dict), f"{path}:{node.lineno}"
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
                assert value.func.id in registered, f"{path}:{node.lineno}"
    assert sites >= 10  # the look found the call sites at all


def test_a_row_that_does_not_fit_its_kind_is_one_damaged_event() -> None:
    damaged = read_event("word_played", {"speech_id": "two", "word": "hi"})
    assert isinstance(damaged, DamagedEvent) and "speech_id" in damaged.why
    assert damaged.words.startswith("a recorded word_played event could not be read (")
    assert read_event("a_later_builds_kind", {}) is None
    replayer = Replayer([], [StoredEvent(0, 10, "word_played", {"speech_id": "two"})])
    replayer.seek(10)
    notes = [e.words for e in replayer.view.entries if isinstance(e, RecordNote)]
    assert len(notes) == 1 and notes[0].startswith("a recorded word_played event could not")


def test_the_report_schema_lists_each_finding_kind() -> None:
    defs = report_schema()["$defs"]
    items = defs["CallRecord"]["properties"]["findings"]["items"]
    kinds = {ref["$ref"].removeprefix("#/$defs/") for ref in items["anyOf"]}
    tags = {defs[k]["properties"]["kind"]["enum"][0] for k in kinds}
    assert tags == {finding_kind(cls) for cls in typing.get_args(Finding)}


def test_a_report_with_a_bogus_finding_is_refused_at_decode() -> None:
    record = CallRecord(
        Outcome.COMPLETED,
        "",
        False,
        "",
        1,
        1,
        "allowed",
        None,
        (),
        (),
        (),
        (NameRefused(1, "sir"),),
    )
    good = report_json(bare_report(record=record))
    assert report_from_json(good).record == record
    for finding in ({"kind": "bogus", "turn": 1}, {"kind": "name_refused", "turn": "one"}):
        bad = {**good, "record": {**good["record"], "findings": [finding]}}
        with pytest.raises(ReportError, match="findings"):
            report_from_json(bad)
