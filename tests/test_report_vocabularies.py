"""The report's vocabularies are enums: every string the schema leaves open is a text, a name
or a moment, each named here with why it is open. A new field that holds one of a fixed set of
words fails this test until the schema lists its words (issue 53, item 4)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema

from sandbox.record.report import ErrorReport, report_schema
from sandbox.wire import pb

#: Each string the schema leaves open, ``Def.field`` (``[]`` for a list's items), and why.
OPEN: dict[str, str] = {
    "Report.session_id": "an id (a UUID)",
    "Report.brain_url": "the URL the user gave",
    "Report.brain_name": "the brain's own name for itself",
    "Report.line": "the line in words; its values are line_profile",
    "Report.started_at": "a moment (ISO 8601)",
    "Report.end_detail": "words saying why the call ended",
    "Report.settings": "the settings in words; their values are config",
    "LineProfile.name": "a profile's name: a built-in one's, or a profile file's own",
    "LineProfile.description": "words",
    "Report.caller_turns[]": "what the caller said",
    "Report.script_notes[]": "words about the script",
    "CallerSaid.text": "what the caller said",
    "ReloadSaid.file": "a path",
    "ReloadSaid.serving": "the brain's words",
    "UnitReport.generated": "text",
    "UnitReport.relayed": "text",
    "UnitReport.heard": "text",
    "UnitReport.discarded[]": "text",
    "StepReport.kind": "001: the brain's own word beside model, tool, database, http, mcp",
    "StepReport.name": "the brain's name for the step",
    "StepReport.provider": "the brain's name for its provider",
    "ErrorReport.message": "the error's words",
    "BackchannelReport.text": "what the caller said",
    "CallRecord.reason": "words saying why the call was not reached",
    "CallRecord.floor": "words; its values are below_floor, caller_lines, caller_words",
    "CallRecord.summary": "words",
    "CallRecord.caller_name": "a name the caller gave",
    "ValueHeard.value": "a value the caller said",
    "ValueHeard.said": "the words it was said in",
    "ValueReadBack.value": "a value the bot read back",
    "ValueReadBack.said": "the words it was read back in",
    "AddressedAs.name": "a name",
    "NameRefused.word": "a word",
    "SpeechUnsaid.detail": "words",
    "NameNotFromCaller.name": "a name",
    "NameNotFromCaller.detail": "words",
    "CalledTheCaller.detail": "words",
    "PromisedUnbooked.detail": "words",
}


def _open_strings(node: object, where: str) -> Iterator[str]:
    """Every string in ``node`` with no enum, const or pattern-bound choice, by place."""
    if isinstance(node, dict):
        closed = "enum" in node or "const" in node or "anyOf" in node
        if node.get("type") == "string" and not closed and "format" not in node:
            yield where
        for key, value in node.items():
            if key == "properties":
                for name, prop in value.items():
                    yield from _open_strings(prop, f"{where}.{name}")
            elif key == "items":
                yield from _open_strings(value, f"{where}[]")
            elif key in ("anyOf", "oneOf"):
                for choice in value:
                    yield from _open_strings(choice, where)
    elif isinstance(node, list):
        for choice in node:
            yield from _open_strings(choice, where)


def _defs() -> dict[str, Any]:
    defs: dict[str, Any] = report_schema()["$defs"]
    return defs


def test_every_open_string_of_the_report_is_a_text_a_name_or_a_moment() -> None:
    found = {place for name, node in _defs().items() for place in _open_strings(node, name)}
    assert found - set(OPEN) == set(), "a new string field: give its words an enum, or say why"
    assert set(OPEN) - found == set(), "no longer open: drop it from OPEN"


def test_an_errors_code_is_a_named_code_or_the_number_of_one_this_build_does_not_name() -> None:
    schema = {"$defs": _defs(), "$ref": f"#/$defs/{ErrorReport.__name__}"}
    error = {"t_ms": 1, "dir": "in", "message": "m", "fatal": False}
    for code in (pb.ErrorCode.Name(pb.ERROR_CODE_VERSION), "57"):
        jsonschema.validate({**error, "code": code}, schema)
    try:
        jsonschema.validate({**error, "code": "version"}, schema)
    except jsonschema.ValidationError:
        pass
    else:
        raise AssertionError("a code that is neither a name nor a number was let through")
