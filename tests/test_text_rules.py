"""The one rule set for outside text, per destination: every C0 and C1 control, bidi control,
noncharacter, tag character and lone surrogate is spelt out for the terminal, Markdown and
XML, escaped to the same value in JSON and TOML; any other text is left as it is. And the
printer fuzz targets, the JUnit one among them, catch a rule that lets one through.
"""

from __future__ import annotations

import json
import re
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from report_check import bare_report

from sandbox.record import plain_text
from sandbox.record.plain_text import (
    BIDI,
    CONTROL,
    escaped_json,
    json_text,
    toml_text,
    visible,
)
from sandbox.record.report import report_from_json, report_text
from sandbox_fuzz import printers
from sandbox_fuzz.guard import InvariantBroken
from sandbox_fuzz.targets import TARGETS

#: Every code point there is.
EVERY = range(0x110000)
#: The code points the rules escape, as characters.
RULED = [chr(c) for c in EVERY if CONTROL.match(chr(c))]
#: The rule before noncharacters and tag characters were in it (the JUnit file a brain's
#: U+FFFF made unparseable).
OLD_RULE = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff{BIDI}]")
#: A fuzz input that escaped the old rule: each text is U+FFFF then TAG LATIN CAPITAL A.
OLD_ESCAPE = (
    Path(__file__).parent / "fuzz_cases/junit/InvariantBroken-printers-354-8952503a7506.bin"
)
#: The ruled characters a wire, a file or a pipe can carry (all but the lone surrogates) ...
SAID = "".join(c for c in RULED if not 0xD800 <= ord(c) <= 0xDFFF)
#: ... and lone surrogates, apart (JSON reads a high one then a low one back as one character).
LONE = "\ud800 \udbff \udc00 \udfff"
#: Text near the ruled ranges that is no control: kept as it is everywhere.
PLAIN = "Café 漢字 שלום 🙂‍🙂 e\u0301 \ufffd \ufdcf\ufdf0 \ufffc \U000e0100 \U0010fffd \u200b"


def _xml_valid(code: int) -> bool:
    """XML 1.0's Char production."""
    return (
        code in (0x9, 0xA, 0xD)
        or 0x20 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    )


def test_the_rules_cover_what_the_issue_names() -> None:
    ruled = {ord(c) for c in RULED}
    ends = {p << 16 | e for p in range(17) for e in (0xFFFE, 0xFFFF)}
    noncharacters = {*range(0xFDD0, 0xFDF0)} | ends
    expected = (
        {*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029}
        | {ord(c) for c in BIDI}
        | noncharacters
        | {*range(0xE0000, 0xE0080)}
        | {*range(0xD800, 0xE000)}
    )
    assert len(noncharacters) == 66
    assert ruled == expected
    assert {c for c in EVERY if not _xml_valid(c)} <= ruled  # XML cannot hold any of these


def test_visible_spells_every_ruled_character_out_and_is_idempotent() -> None:
    for char in RULED:
        shown = visible(f"a{char}b")
        assert not CONTROL.search(shown) and visible(shown) == shown, repr(char)
    assert visible("\uffff\ufffe\U000e0041\U0010ffff\ufdd0") == (
        "\\uffff\\ufffe\\U000e0041\\U0010ffff\\ufdd0"
    )


def test_no_rule_touches_other_text() -> None:
    assert visible(PLAIN) == PLAIN
    assert json.loads(json_text(PLAIN)) == PLAIN and "漢字" in json_text(PLAIN)
    assert toml_text({"say": PLAIN}) == f'say = "{PLAIN}"\n'


def test_every_code_point_in_an_xml_file_parses_back_as_it_was_shown() -> None:
    text = "".join(map(chr, EVERY))
    element = ET.Element("failure", message=visible(text))
    element.text = visible(text)
    read = ET.fromstring(ET.tostring(element, encoding="utf-8"))
    assert read.text == read.get("message") == visible(text)


def test_json_holds_every_code_point_escaped_as_the_same_value() -> None:
    value = {"text": SAID + LONE + PLAIN, SAID[-200:]: [1, None]}
    for html in (False, True):
        written = json_text(value, indent=2, html=html)
        assert json.loads(written) == value
        assert set(CONTROL.findall(written)) == {"\n"}  # its own indentation only
    assert "\\udb40\\udc41" in json_text("\U000e0041")  # beyond the BMP: its UTF-16 pair


def test_the_report_file_is_escaped_as_export_json_is() -> None:
    """``sandbox call --report`` (msgspec's JSON) follows the same rule as ``export --json``."""
    report = bare_report([{"t_ms": 1, "dir": "in", "type": "error", "message": SAID}])
    written = report_text(report)
    assert set(CONTROL.findall(written)) == {"\n"}
    assert report_from_json(json.loads(written)) == report
    assert escaped_json(json.dumps({"a": SAID}, ensure_ascii=False)) == json_text({"a": SAID})


def test_toml_reads_back_every_character_it_can_hold() -> None:
    value = {"step": [{"say": SAID + PLAIN}], f"key{SAID[-40:]}": 1}
    written = toml_text(value)
    assert set(CONTROL.findall(written)) == {"\n"}
    assert tomllib.loads(written) == value
    # A lone surrogate has no TOML spelling: it reads back spelt out, never breaks the file.
    assert tomllib.loads(toml_text({"say": LONE})) == {"say": visible(LONE)}


# ----------------------------------------------------------------------- fuzz


def test_the_junit_file_is_a_printer_fuzz_target_the_bench_counts() -> None:
    assert TARGETS["junit"].run is printers.fuzz_junit
    assert "junit" in printers.PRINTERS  # printer_escapes (bench --hostile) runs them all


def test_the_printer_targets_catch_the_old_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    data = OLD_ESCAPE.read_bytes()
    for target in ("terminal", "markdown", "notify", "junit"):
        TARGETS[target].run(data)  # the rule now: nothing escapes
    assert printers.printer_escapes(100)["printer_escapes"] == 0
    monkeypatch.setattr(plain_text, "_VISIBLE_SCAN", OLD_RULE)
    with pytest.raises(InvariantBroken, match="not well-formed XML"):
        printers.fuzz_junit(data)
    for target in ("terminal", "markdown", "notify"):
        with pytest.raises(InvariantBroken, match=r"printed raw '\\U000e0041', '\\uffff'"):
            TARGETS[target].run(data)
    assert printers.printer_escapes(100)["printer_escapes"] > 0


def test_the_junit_target_catches_a_forged_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer that let a problem's line feed through would add a line to the CI's view."""
    monkeypatch.setattr("sandbox.testing.reports.visible", lambda text: text)
    with pytest.raises(InvariantBroken, match="cannot add a line"):
        printers.fuzz_junit(bytes([1, 0, 1, 0x0A]) * 14)  # each text a line feed
