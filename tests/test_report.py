"""The call's report: one typed value built from the core's read-only ledger, its JSON both
ways with the keys users' scripts read, and its published schema (``sandbox schema report``)."""

from __future__ import annotations

import ast
import inspect
import json
import sqlite3
import subprocess
from pathlib import Path

import jsonschema
import msgspec
import pytest
from brain_process import sandbox_command, sandbox_env
from checkout import REPO, package_files
from msgspec import UNSET
from report_check import bare_report, saved_reports
from session_rig import recorded_call

from sandbox.call.caller_events import TranscriptMend, TurnClose
from sandbox.call.core import CallCore
from sandbox.call.effects import EndedBy
from sandbox.call.outcome import Outcome
from sandbox.call.units import Fate
from sandbox.call.waterfall import STAGES
from sandbox.judges.readback import ReadbackStatus
from sandbox.record.export import session_report, session_report_json
from sandbox.record.frame_report import NOT_ARMS
from sandbox.record.report import (
    CallerSaid,
    ConversationRecord,
    FirstChunk,
    GreetingSent,
    IdleSent,
    InterruptionSent,
    ReloadSaid,
    ReportError,
    StepReport,
    Timeline,
    TurnReport,
    UnitStarted,
    report_from_json,
    report_json,
    report_schema,
)
from sandbox.record.store import SessionStore
from sandbox.wire import pb
from sandbox.wire.direction import Direction

#: The report's keys, in order, as every build has written them since it had each.
KEYS = [
    "report_version",
    "session_id",
    "brain_url",
    "brain_name",
    "started_at",
    "outcome",
    "ended_by",
    "end_detail",
    "settings",
    "config",
    "watermark",
    "caller_turns",
    "turn_closes",
    "turn_mends",
    "turns",
    "conversation",
    "units",
    "units_unkept",
    "steps",
    "errors",
    "backchannels",
    "stalls",
    "dead_air",
    "alignment_skips",
    "errors_uncounted",
    "malformed_unkept",
    "frames_unkept",
    "record",
    "frames",
]
UNIT_KEYS = [
    "speech_id",
    "turn_id",
    "generated",
    "relayed",
    "heard",
    "interrupted",
    "fate",
    "words_heard",
    "words_total",
    "discarded",
    "dropped_chars",
    "voice",
    "language",
]
#: Keys a report written before they existed lacks.
LATER_KEYS = ["brain_name", "turn_closes", "backchannels", "stalls", "errors_uncounted"]
LATER_KEYS += ["malformed_unkept", "record", "turns", "dead_air", "frames_unkept"]
LATER_KEYS += ["conversation", "config", "turn_mends", "units_unkept"]


async def test_a_saved_call_report_validates_and_reads_back_as_the_same_value(home: Path) -> None:
    host = await recorded_call()
    report = host.recorder.final_report
    assert report is not None
    with SessionStore() as store:
        (row,) = store.sessions()
        stored = store.report(row.id)
        assert stored is not None
        assert report_from_json(stored) == report == session_report(store, row)
    jsonschema.validate(stored, report_schema())
    assert list(stored) == KEYS and list(stored["units"][0]) == UNIT_KEYS
    assert report_json(report) == stored
    assert [where for where, _ in saved_reports(home)] == [f"stored report of {row.id}"]


def test_sandbox_schema_report_prints_the_schema_reports_are_checked_against(home: Path) -> None:
    result = subprocess.run(
        sandbox_command("schema", "report"),
        capture_output=True, text=True, env=sandbox_env(home), timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    assert printed == report_schema()
    jsonschema.Draft202012Validator.check_schema(printed)
    assert set(printed["$defs"]["Report"]["required"]) == set(KEYS) - set(LATER_KEYS)


#: Each word of the report that comes from a fixed vocabulary, and its enum: (struct, field).
VOCABULARIES = {
    ("Report", "outcome"): Outcome,
    ("Report", "ended_by"): EndedBy,
    ("UnitReport", "fate"): Fate,
    ("ErrorReport", "dir"): Direction,
    ("CallRecord", "outcome"): Outcome,
    ("ValueReadBack", "status"): ReadbackStatus,
}


def test_the_reports_vocabularies_are_enums_and_a_word_outside_one_is_refused() -> None:
    defs = report_schema()["$defs"]
    for (struct, field), vocabulary in VOCABULARIES.items():
        ref = defs[struct]["properties"][field]["$ref"].removeprefix("#/$defs/")
        assert set(defs[ref]["enum"]) == {word.value for word in vocabulary}, (struct, field)
    for field, vocabulary in (("turn_closes", TurnClose), ("turn_mends", TranscriptMend)):
        words = defs["Report"]["properties"][field]["additionalProperties"]["$ref"]
        assert set(defs[words.removeprefix("#/$defs/")]["enum"]) == set(vocabulary), field
    good = report_json(bare_report(turn_closes={"2": TurnClose.SILENCE}))
    assert report_from_json(good).outcome is Outcome.COMPLETED
    wrong: list[tuple[str, object]] = [("outcome", "bogus"), ("ended_by", "someone")]
    wrong += [("turn_closes", {"2": "?"}), ("turn_mends", {"2": "?"})]
    for key, word in wrong:
        with pytest.raises(ReportError, match=key):
            report_from_json({**good, key: word})


async def test_a_report_from_an_older_build_loads_and_exports_as_it_was(home: Path) -> None:
    host = await recorded_call()
    session_id = host.core.session_id
    with SessionStore() as store:
        older = report_json(session_report(store, store.find(session_id)))
    for key in LATER_KEYS:
        del older[key]
    for unit in older["units"]:
        del unit["dropped_chars"]
    db = sqlite3.connect(home / "sessions.db")
    with db:
        db.execute("UPDATE sessions SET report = ? WHERE id = ?", (json.dumps(older), session_id))
    db.close()
    with SessionStore() as store:
        row = store.find(session_id)
        report = session_report(store, row)
        assert report.record is UNSET and report.stalls is UNSET
        assert report.units[0].dropped_chars is UNSET
        assert session_report_json(store, row) == older
    assert report_json(report) == older  # written again, it lacks what it lacked
    shown = subprocess.run(
        sandbox_command("sessions", "show", session_id[:8]),
        capture_output=True, text=True, env=sandbox_env(home), timeout=60,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert "What are your opening hours?" in shown.stdout


def test_no_module_outside_the_call_core_reads_more_of_it_than_its_record() -> None:
    """Outside ``sandbox/call/`` a core (a name or attribute called ``core``) is read only
    through its read-only surface — the ledger, values and read-only queries — and fed
    events through its public methods; nothing assigns to it."""
    read_only = {"ledger", "units", "unit", "in_play", "started", "ended", "state"}
    read_only |= {"units_unkept", "unit_kept"}
    read_only |= {"outcome", "verdict", "awaiting_brain", "next_deadline", "session_id"}
    read_only |= {"settings", "capabilities", "caps", "watermark", "turn", "init", "stall_ms"}
    read_only |= {"line_ms"}  # how it was set up, as a stored call sets a fresh one up
    events = {
        name
        for name, member in inspect.getmembers(CallCore, inspect.isfunction)
        if not name.startswith("_") and name not in read_only
    }
    broken = []
    for name, path in package_files():
        if name.startswith("call/"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Attribute) or not _is_core(node.value):
                continue
            where = f"{path.relative_to(REPO)}:{node.lineno} core.{node.attr}"
            if node.attr not in read_only | events:
                broken.append(f"{where} is not part of the core's read-only record")
            elif not isinstance(node.ctx, ast.Load):
                broken.append(f"{where} is assigned outside the core")
    assert broken == []


def _is_core(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "core") or (
        isinstance(node, ast.Attribute) and node.attr == "core"
    )


def test_a_reports_steps_and_frames_are_typed_cannot_change_and_a_bad_one_is_refused() -> None:
    step = {"t_ms": 5, "turn_id": 2, "kind": "tool", "name": "book", "provider": ""}
    step |= {"start_ms": 0, "duration_ms": 40, "counts": {"rows": 3}}
    frame = {"t_ms": 7, "dir": "in", "type": "speech_start", "speech_id": 1, "turn_id": 2}
    good = report_json(bare_report([frame], steps=(report_from_json_step(step),)))
    assert good["steps"] == [step] and good["frames"] == [frame]  # the JSON's shape, as ever
    report = report_from_json(good)
    (read_step,), (read_frame,) = report.steps, report.frames
    with pytest.raises(AttributeError):
        read_step.kind = "model"  # type: ignore[misc]
    with pytest.raises(TypeError):
        read_step.counts["rows"] = 4  # type: ignore[index]
    with pytest.raises(AttributeError):
        read_frame.t_ms = 9  # type: ignore[misc]
    read_frame.fields["speech_id"] = 99  # a copy: the report keeps what crossed
    assert read_frame.fields["speech_id"] == 1 and report_json(report) == good
    assert (read_frame.dir, read_frame.type) == (Direction.IN, "speech_start")
    bad_values = [
        ("steps", [{**step, "duration_ms": "slow"}]),
        ("steps", [{**step, "counts": {"rows": "three"}}]),
        ("frames", [{**frame, "dir": "sideways"}]),
        ("frames", [{**frame, "type": "speech_begin"}]),
        ("frames", [{**frame, "t_ms": "soon"}]),
        ("frames", ["not a frame"]),
    ]
    for key, value in bad_values:
        with pytest.raises(ReportError, match=rf"\$\.{key}\[0\]"):
            report_from_json({**good, key: value})


def report_from_json_step(step: dict[str, object]) -> StepReport:
    """A step as a report holds it, from its JSON."""
    return msgspec.convert(step, StepReport)


def test_the_report_schema_types_steps_and_frames_with_their_vocabularies() -> None:
    defs = report_schema()["$defs"]
    frame = defs["FrameReport"]["properties"]
    assert set(defs[frame["dir"]["$ref"].removeprefix("#/$defs/")]["enum"]) == set(Direction)
    arms = set(defs[frame["type"]["$ref"].removeprefix("#/$defs/")]["enum"])
    oneof = pb.Envelope.DESCRIPTOR.oneofs_by_name["body"]
    assert arms == {field.name for field in oneof.fields} | set(NOT_ARMS)
    steps = defs["StepReport"]["properties"]
    # Every field of the wire's TurnStep has its place in the report's step.
    assert set(pb.TurnStep.DESCRIPTOR.fields_by_name) <= set(steps)


def test_a_turns_timeline_is_typed_its_stages_in_order_the_absent_ones_left_out() -> None:
    assert tuple(Timeline.__struct_fields__) == tuple(STAGES)  # one field per stage, in order
    timeline = Timeline.of({"first_chunk": 700, "user_message": 500, "not_a_stage": 1})
    assert timeline.marks == {"user_message": 500, "first_chunk": 700}
    good = report_json(bare_report(turns=(TurnReport(2, timeline),)))
    assert good["turns"] == [{"turn_id": 2, "timeline": {"user_message": 500, "first_chunk": 700}}]
    assert list(good["turns"][0]["timeline"]) == ["user_message", "first_chunk"]
    assert report_from_json(good).turns == (TurnReport(2, timeline),)
    with pytest.raises(ReportError, match=r"\$\.turns\[0\]\.timeline\.first_chunk"):
        report_from_json({**good, "turns": [{"turn_id": 2, "timeline": {"first_chunk": "soon"}}]})


#: One record of each kind a report's conversation keeps, and its JSON.
CONVERSATION: list[tuple[ConversationRecord, dict[str, object]]] = [
    (GreetingSent(t_ms=0, turn_id=1), {"kind": "greeting", "t_ms": 0, "turn_id": 1}),
    (UnitStarted(t_ms=40, speech_id=1, turn_id=1), {"kind": "unit", "t_ms": 40, "speech_id": 1,
                                                   "turn_id": 1}),
    (FirstChunk(t_ms=41, turn_id=1), {"kind": "first_chunk", "t_ms": 41, "turn_id": 1}),
    (CallerSaid(t_ms=900, turn_id=2, text="hi"), {"kind": "caller", "t_ms": 900, "turn_id": 2,
                                                 "text": "hi"}),
    (InterruptionSent(t_ms=901, through_turn=1), {"kind": "interruption", "t_ms": 901,
                                                  "through_turn": 1}),
    (IdleSent(t_ms=9000, turn_id=3, level=1), {"kind": "idle", "t_ms": 9000, "turn_id": 3,
                                               "level": 1}),
    (ReloadSaid(t_ms=9500, file="a.py", serving="A", moved=True), {"kind": "brain_reloaded",
     "t_ms": 9500, "file": "a.py", "serving": "A", "moved": True}),
]  # fmt: skip


def test_the_conversation_is_typed_records_each_tagged_with_its_kind() -> None:
    records = tuple(record for record, _ in CONVERSATION)
    good = report_json(bare_report(conversation=records))
    assert good["conversation"] == [shape for _, shape in CONVERSATION]
    assert report_from_json(good).conversation == records
    jsonschema.validate(good, report_schema())
    kinds = {shape["kind"] for _, shape in CONVERSATION}
    listed = report_schema()["$defs"]["Report"]["properties"]["conversation"]["items"]
    assert set(listed["discriminator"]["mapping"]) == kinds  # the schema lists each
    for bad in ({"kind": "chunk", "t_ms": 1}, {"kind": "caller", "t_ms": 1, "turn_id": 2}):
        with pytest.raises(ReportError, match=r"\$\.conversation\[0\]"):
            report_from_json({**good, "conversation": [bad]})


def test_one_builder_makes_a_calls_report() -> None:
    """A report is built in one place (``record/call_report.py``), from a core that took the
    call's inputs, live or fed again from the store; the only other makers are named: the
    report of a session an older build stored, which kept no inputs to feed, and the fuzz
    printers' hostile report (made of fuzzed text, not of a call)."""
    others = {"record/legacy_report.py": "an older build's session", "fuzz/printers.py": "fuzz"}
    makers = sorted(
        name
        for name, path in package_files()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "Report"
    )
    assert makers == sorted(["record/call_report.py", *others])
