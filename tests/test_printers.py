"""A brain's (or a caller's) text is data, never control: the one escape helper, the printers
that use it, their fuzz targets, and the CLI end to end against a raw-wire brain whose Error
messages and words are terminal escapes, markup and forged Markdown lines.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_text_brain import FATAL, HOSTILE, SaysHostileText, hostile_text_brain
from markdown_it import MarkdownIt
from report_check import bare_report

from sandbox.call.core import CallCore
from sandbox.call.inputs import HangUp, Start
from sandbox.call.settings import Capabilities, Settings
from sandbox.call.sim_playout import SimPlayout
from sandbox.call.units import MAX_CHUNK_CHARS
from sandbox.paths import HOME_ENV
from sandbox.record import transcript as transcript_module
from sandbox.record.markdown import session_markdown
from sandbox.record.page.build import DATA_OPEN, page_html
from sandbox.record.plain_text import CONTROL, json_text, visible
from sandbox.record.report import CallerSaid, ErrorReport, Report
from sandbox.record.transcript import WireError, transcript_line
from sandbox.wire import pb
from sandbox.wire.codec import envelope
from sandbox.wire.direction import Direction
from sandbox_fuzz import core_target, printers
from sandbox_fuzz.guard import InvariantBroken
from sandbox_fuzz.targets import TARGETS

#: A call its brain ends with a fatal Error may be recorded as not reached: exit 1.
NOT_REACHED_TOO = (0, 1)

#: The caller's line: an ESC sequence, a bidi override, a forged list item, a comment and a
#: script tag (TOML spells the controls as escapes).
CALLER = "Hi <!--<script> \x1b[2J \u202eevil\u202c\r- forged item"
SCRIPT = '[[step]]\nsay = "Hi <!--<script> \\u001b[2J \\u202eevil\\u202c\\r- forged item"\n'


def raw_controls(text: str, allowed: str = "\n") -> set[str]:
    """The control characters in ``text`` that nothing spelt out."""
    return {c for c in CONTROL.findall(text) if c not in allowed}


# ------------------------------------------------------------------ the helper


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b[2J", "\\x1b[2J"),
        ("a\tb\nc\rd", "a\\tb\\nc\\rd"),
        ("\x00\x7f\x85\x9b", "\\x00\\x7f\\x85\\x9b"),
        ("\u202eevil\u202c", "\\u202eevil\\u202c"),
        ("\u2066x\u2069 \u200f\u061c", "\\u2066x\\u2069 \\u200f\\u061c"),
        ("line\u2028para\u2029", "line\\u2028para\\u2029"),
        ("\ud800", "\\ud800"),
    ],
)
def test_visible_spells_out_every_control(text: str, shown: str) -> None:
    assert visible(text) == shown
    assert visible(shown) == shown  # once is enough: it is idempotent


def test_visible_leaves_text_alone() -> None:
    text = "Café, 漢字, שלום, مرحبا, 🙂‍🙂, e\u0301, [b]x[/b] <a> & \\ ` *"
    assert visible(text) == text


def test_json_text_is_the_same_json_with_nothing_raw() -> None:
    value = {"t": "</script><!--<script>&\u2028\u2029\x1b\x85\u202e é", "n": [1, None]}
    printed = json_text(value, indent=2)
    assert json.loads(printed) == value
    assert not raw_controls(printed) and "é" in printed and "<" in printed
    embedded = json_text(value, html=True)
    assert json.loads(embedded) == value
    assert not {"<", ">", "&"} & set(embedded) and not raw_controls(embedded, allowed="")


# ------------------------------------------------------------------- printers


def test_a_brain_errors_terminal_escapes_are_printed_spelt_out() -> None:
    line = transcript_line(WireError("in", "INTERNAL", HOSTILE, fatal=True))
    assert not raw_controls(line, allowed="")
    assert "\\x1b[2J\\x1b]0;owned\\x07" in line and "\\u202eevil" in line


def _report(caller: str, message: str) -> Report:
    """A caller line and the brain's error, where a report keeps each."""
    return bare_report(
        [
            {"t_ms": 1, "dir": "out", "type": "user_message", "turn_id": 2, "text": caller},
            {"t_ms": 2, "dir": "in", "type": "error", "code": "INTERNAL", "message": message},
        ],
        conversation=(CallerSaid(t_ms=1, turn_id=2, text=caller),),
        errors=(ErrorReport(2, Direction.IN, "INTERNAL", message, False),),
    )


def test_a_carriage_return_cannot_forge_a_markdown_list_item() -> None:
    row = printers._row(["ws://x", "", "", *[""] * 11])
    summary = session_markdown(row, _report("a\r- forged\r# heading", "b\n- forged too"))
    tokens = MarkdownIt("commonmark").parse(summary)
    assert sum(t.type == "list_item_open" for t in tokens) == 2
    assert [t.tag for t in tokens if t.type == "heading_open"] == ["h2", "h3", "h3"]
    assert "\r" not in summary and "a\\\\r- forged\\\\r\\# heading" in summary


def test_a_code_span_holds_any_backticks() -> None:
    row = printers._row(["ws://x/``a`", "", "", *[""] * 11])
    summary = session_markdown(row, bare_report())
    code = [
        c for t in MarkdownIt().parse(summary) for c in t.children or () if c.type == "code_inline"
    ]
    assert [c.content for c in code] == ["ws://x/``a`"]


def test_the_pages_data_cannot_be_ended_or_commented_out() -> None:
    data = {"entries": [{"text": "<!--<script>"}, {"text": "</script><script>alert(1)</script>"}]}
    page = page_html(data, "a <title>")
    start = page.index(DATA_OPEN) + len(DATA_OPEN)
    block = page[start : page.index("</script>", start)]
    assert "<" not in block and json.loads(block) == data
    assert "<title>a &lt;title&gt;</title>" in page


# ----------------------------------------------------------------------- fuzz


def test_the_core_target_does_not_count_a_dropped_oversized_chunk_as_said() -> None:
    voices = Capabilities(voices=core_target._VOICES)
    core = CallCore(core_target.SESSION, caps=voices, settings=Settings(idle_ms=0))
    drive = core_target._Drive(core, SimPlayout(ms_per_word=1))
    drive.take(core.handle(Start(), 0))
    for body in (
        pb.SpeechStart(speech_id=1, turn_id=1),
        pb.SpeechChunk(speech_id=1, text="x" * (MAX_CHUNK_CHARS + 1)),  # dropped by design
        pb.SpeechChunk(speech_id=1, text="Hello there."),
        pb.SpeechEnd(speech_id=1),
    ):
        drive.brain(envelope(body))
    drive.advance(60_000)
    drive.take(core.handle(HangUp(), drive.now))
    assert drive.said == {1: "Hello there."}
    core_target._check_finalizes(drive)


def test_every_printer_is_a_registered_fuzz_target() -> None:
    assert {"terminal", "markdown", "page", "notify"} <= set(TARGETS)


def test_the_printers_let_nothing_escape() -> None:
    assert printers.printer_escapes(200) == {"printer_examples": 200, "printer_escapes": 0}


def test_the_terminal_target_catches_a_printer_that_prints_raw(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(transcript_module, "visible", lambda text: text)
    with pytest.raises(InvariantBroken, match="printed raw"):
        printers.fuzz_terminal(b"\x02\x01\x02\x01\x02\x01" * 40)
    assert printers.printer_escapes(40)["printer_escapes"] > 0


# ------------------------------------------------------------ the CLI, end to end


class FatalAndHostile(SaysHostileText):
    """Ends the call with a fatal Error whose message is markup and escapes too."""

    fatal = f"{FATAL} {HOSTILE}"


def _cli(home: Path, *args: str, codes: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "sandbox.cli", *args],
        capture_output=True, text=True, env={**os.environ, HOME_ENV: str(home)}, timeout=120,
    )  # fmt: skip
    assert done.returncode in codes and "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture(scope="module")
def hostile_call(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, str]]:
    """A `sandbox call` against the hostile-text brain: the home, the session id, stdout."""
    home = tmp_path_factory.mktemp("home")
    (home / "call.toml").write_text(SCRIPT)
    with hostile_text_brain(FatalAndHostile) as url:
        called = _cli(
            home, "call", "--brain", url, "--script", str(home / "call.toml"), codes=NOT_REACHED_TOO
        )
    session = re.search(r"session ([0-9a-f-]{36})", called.stdout)
    assert session is not None, called.stdout
    yield home, session.group(1), called.stdout


def _spelt_out(output: str) -> None:
    assert not raw_controls(output), output
    assert "\\x1b[2J\\x1b]0;owned\\x07" in output  # the brain's escapes, as text
    assert "\\u202eevil\\u202c" in output  # the caller's bidi override, seen
    assert "[/x]" in output and "[@click=app.quit]q[/]" in output


def test_sandbox_call_prints_a_brains_escapes_as_text(hostile_call: tuple[Path, str, str]) -> None:
    _spelt_out(hostile_call[2])


def test_sessions_show_prints_them_as_text(hostile_call: tuple[Path, str, str]) -> None:
    home, session, _ = hostile_call
    _spelt_out(_cli(home, "sessions", "show", session[:8]).stdout)
    shown = _cli(home, "sessions", "show", session[:8], "--json").stdout
    assert not raw_controls(shown)
    messages = [f.get("message") for f in json.loads(shown)["frames"] if f["type"] == "error"]
    assert HOSTILE in messages and f"{FATAL} {HOSTILE}" in messages  # the data, whole
    said = [f.get("text") for f in json.loads(shown)["frames"] if f["type"] == "user_message"]
    assert said == [CALLER]


def test_the_markdown_export_keeps_its_own_lines(hostile_call: tuple[Path, str, str]) -> None:
    home, session, _ = hostile_call
    summary = _cli(home, "export", session[:8], "--md", "-").stdout
    _spelt_out(summary.replace("\\\\", "\\").replace("\\[", "[").replace("\\]", "]"))
    assert not any(line.startswith(("- forged", "# forged")) for line in summary.splitlines())
    tokens = MarkdownIt("commonmark").parse(summary)
    assert [t.tag for t in tokens if t.type == "heading_open"] == ["h2", "h3", "h3", "h3"]
    inline = {c.type for t in tokens for c in t.children or ()}
    assert not inline & {"link_open", "html_inline", "image"}
    # one item a transcript entry: the greeting, 3 errors, the caller, the fatal error, the
    # echo; then the call record's lines
    items = [line for line in summary.split("### Heard truth")[0].splitlines() if line[:2] == "- "]
    assert len(items) == 7, summary
