"""Fuzz targets for the printers: whatever text a brain or a caller sends is shown as data.

One target a printer, each fed a report whose every string (caller lines, a unit's text, an
Error's code and message, the call record's values, the brain's URL, the end's detail) is
hostile text: ESC and OSC sequences, C1 controls, carriage returns and line feeds, bidi
overrides, noncharacters (U+FFFE, U+FFFF, ...), tag characters, lone surrogates,
Rich/Textual markup, ``<!--`` and ``<script>``, Markdown's active characters, XML's.

- ``terminal``: what ``sandbox sessions show`` prints (its transcript and record lines are
  the ones ``sandbox call`` prints) holds no control character but its own line feeds, and
  as many lines as for the same report in plain words.
- ``markdown``: the Markdown export holds no control character, parses (CommonMark with
  tables and strikethrough, as GitHub reads it) to the same blocks as the plain report's, and
  no text in it becomes a link, an image or HTML (GitHub still links a bare URL, showing it).
- ``page``: the HTML page's data block holds no ``<`` (so no text can end it or comment it
  out), holds no control character, and reads back as the data itself (as any JSON of it).
- ``notify``: an app notification of the text is not parsed as markup: Textual's toast shows
  it as written (controls spelt out).
- ``junit``: the JUnit file of a ``sandbox test`` run whose scripts' paths, problems and
  session ids are hostile text is well-formed XML (a CI can always read it), holds no
  control character but its own line feeds, one line a problem.

:func:`printer_escapes` runs them all over seeded random inputs for ``sandbox bench
--hostile``.
"""

from __future__ import annotations

import functools
import json
import os
import random
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from markdown_it import MarkdownIt
from textual.message import Message
from textual.notifications import Notification, Notify
from textual.widgets._toast import Toast  # not exported: the widget that shows a notification

from sandbox.call.effects import EndedBy
from sandbox.call.outcome import Outcome
from sandbox.call.units import Fate
from sandbox.caller.expect import Failure
from sandbox.judges.entities import ValueKind
from sandbox.judges.readback import ReadbackStatus
from sandbox.record.frame_report import decoded
from sandbox.record.markdown import session_markdown
from sandbox.record.page.build import DATA_OPEN, page_html
from sandbox.record.plain_text import CONTROL, visible
from sandbox.record.report import (
    REPORT_VERSION,
    BackchannelReport,
    CallRecord,
    NameRefused,
    PromisedUnbooked,
    Report,
    UnitReport,
    ValueHeard,
    ValueReadBack,
)
from sandbox.record.session_kinds import CallMode, Leg
from sandbox.record.session_text import session_text
from sandbox.record.store import SessionRow
from sandbox.testing.reports import junit_xml
from sandbox.testing.script_results import Run, ScriptResult, ScriptRuns
from sandbox.ui.plain_app import PlainApp
from sandbox_fuzz.draw import Draw
from sandbox_fuzz.guard import InvariantBroken

#: Pieces hostile text is made of, beside arbitrary bytes and single control characters.
FRAGMENTS = (
    "\x1b[2J\x1b[H",  # clear the screen
    "\x1b]0;owned\x07",  # set the window title
    "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",  # an OSC 8 link
    "\x9b31m",  # an 8-bit CSI
    "\r- forged item",
    "\n# forged heading",
    "\r\n",
    "\u2028",
    "\u202e",
    "\u2066",
    "\ufffe",
    "\uffff",
    "\U000e0001\U000e0065\U000e006e\U000e007f",  # a language tag: invisible words
    "\U000e0069\U000e0067\U000e006e\U000e006f\U000e0072\U000e0065",  # "ignore", hidden
    "[/x]",
    "[bold red]x[/]",
    "[@click=app.quit]q[/]",
    "[link=https://evil.example]here[/link]",
    "<!--",
    "<script>",
    "</script>",
    "<!--<script>",
    "]]>",
    "&amp;",
    "&#xFFFF;",
    "<?xml ?>",
    "`",
    "```",
    "**",
    "_",
    "~~",
    "|",
    "#",
    "1. ",
    "- ",
    "> ",
    "\\",
    "[a](https://evil.example)",
    "![i](https://evil.example/i.png)",
    "<https://evil.example>",
    "\ud800",
    "é",
    "漢字",
    "🙂",
    " ",
    "word",
)
#: Single characters worth drawing on their own: every C0, DEL, C1 and bidi control, and
#: noncharacters, tag characters and surrogates from each end of their ranges.
CONTROLS = tuple(chr(c) for c in (*range(0x20), *range(0x7F, 0xA0))) + tuple(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u2029"
    "\ufdd0\ufdef\ufffe\uffff\U0001fffe\U0001ffff\U0010fffe\U0010ffff"
    "\U000e0000\U000e0001\U000e0020\U000e0041\U000e007e\U000e007f\ud800\udbff\udc00\udfff"
)
#: How many strings one report carries (every place a printer shows outside text).
TEXTS = 14
_MARKDOWN = MarkdownIt("commonmark").enable(["strikethrough", "table"])
#: Inline Markdown no text may turn itself into.
_ACTIVE = frozenset({"link_open", "image", "html_inline", "html_block"})


def hostile_text(draw: Draw, pieces: int = 6) -> str:
    """Up to ``pieces`` fragments, control characters and arbitrary text, run together."""
    out = []
    for _ in range(draw.number(0, pieces)):
        kind = draw.number(0, 3)
        if kind == 0:
            out.append(draw.text(12))
        elif kind == 1:
            out.append(draw.pick(CONTROLS))
        else:
            out.append(draw.pick(FRAGMENTS))
    return "".join(out)


def _texts(data: bytes) -> list[str]:
    draw = Draw(data)
    return [hostile_text(draw) for _ in range(TEXTS)]


def _plain(texts: list[str]) -> list[str]:
    """The same report in plain words: what its structure must be."""
    return [f"word{i}" if text else "" for i, text in enumerate(texts)]


def _row(t: list[str]) -> SessionRow:
    return SessionRow(
        id="0123456789abcdef",
        started_at=0.0,
        ended_at=1.0,
        brain_url=t[0],
        leg=Leg.DIRECT,
        mode=CallMode.TYPED,
        app_version="0",
        wire_version=1,
        outcome=Outcome.COMPLETED,
        ended_by=EndedBy.BRAIN_ERROR,
        end_detail=t[1],
        duration_ms=1000,
        caller_turns=1,
        units=1,
        cuts=1,
        errors=2,
        recording_stopped=t[2],
        redrive_of=None,
    )


def _report(t: list[str]) -> Report:
    """A report whose every string a brain or a caller could have written is from ``t``."""
    frames = tuple(
        decoded(frame)
        for frame in (
            {"t_ms": 10, "dir": "out", "type": "user_message", "turn_id": 2, "text": t[3]},
            {"t_ms": 20, "dir": "in", "type": "speech_start", "speech_id": 1, "turn_id": 2},
            {
                "t_ms": 30,
                "dir": "in",
                "type": "error",
                "code": t[4],
                "message": t[5],
                "fatal": True,
            },
            {"t_ms": 40, "dir": "out", "type": "error", "code": "PROTOCOL", "message": t[6]},
        )
    )
    generated = f"{t[7]} and the rest"
    record = CallRecord(
        outcome=Outcome.COMPLETED,
        reason=t[8],
        below_floor=False,
        floor="",
        caller_lines=1,
        caller_words=1,
        summary="allowed",
        caller_name=t[9],
        entities=(ValueHeard(2, ValueKind.DATE, t[11], t[11]),),
        readbacks=(
            ValueReadBack(2, ValueKind.PHONE, t[10], t[10], ReadbackStatus.CONFIRMED, 1, 3),
        ),
        addressed_as=(),
        findings=(
            PromisedUnbooked(1, 2, t[12]),
            NameRefused(2, t[13]),
        ),
    )
    return Report(
        report_version=REPORT_VERSION,
        session_id="0123456789abcdef",
        brain_url=t[0],
        started_at="",
        outcome=Outcome.COMPLETED,
        ended_by=EndedBy.BRAIN_ERROR,
        end_detail=t[1],
        settings="",
        watermark=2,
        caller_turns=(t[3],),
        turn_closes={},
        units=(UnitReport(1, 2, generated, generated, t[7], True, Fate.BARGED, 1, 4, ()),),
        steps=(),
        errors=(),
        backchannels=(BackchannelReport(25, t[11], True),),
        stalls=(),
        alignment_skips=0,
        record=record,
        frames=frames,
    )


def _terminal_output(texts: list[str]) -> str:
    return session_text(_row(texts), _report(texts))


def _no_control(printer: str, output: str, allowed: str = "\n") -> None:
    found = {c for c in CONTROL.findall(output) if c not in allowed}
    if found:
        raise InvariantBroken(
            "outside text is data, never control",
            f"the {printer} printed raw {', '.join(sorted(repr(c) for c in found))}",
        )


def fuzz_terminal(data: bytes) -> None:
    """See the module doc."""
    texts = _texts(data)
    output = _terminal_output(texts)
    _no_control("terminal", output)
    expected = _terminal_output(_plain(texts)).count("\n")
    if output.count("\n") != expected:
        raise InvariantBroken(
            "outside text cannot add a line",
            f"the terminal got {output.count(chr(10))} lines, not {expected}: {output!r}",
        )


def _blocks(markdown: str) -> list[tuple[str, str, int]]:
    return [(t.type, t.tag, t.nesting) for t in _MARKDOWN.parse(markdown) if t.block]


def fuzz_markdown(data: bytes) -> None:
    """See the module doc."""
    texts = _texts(data)
    output = session_markdown(_row(texts), _report(texts))
    _no_control("Markdown export", output)
    expected = session_markdown(_row(_plain(texts)), _report(_plain(texts)))
    if _blocks(output) != _blocks(expected):
        raise InvariantBroken(
            "outside text cannot add a line, an item or a heading",
            f"the Markdown's blocks differ from the plain report's: {output!r}",
        )
    tokens = _MARKDOWN.parse(output)
    active = {c.type for t in tokens for c in t.children or () if c.type in _ACTIVE}
    if active:
        raise InvariantBroken(
            "outside text is never markup", f"text became {sorted(active)}: {output!r}"
        )


def fuzz_page(data: bytes) -> None:
    """See the module doc."""
    texts = _texts(data)
    shown = {"session": {"brain": texts[0]}, "entries": [{"text": t} for t in texts]}
    page = page_html(shown, texts[1])
    start = page.index(DATA_OPEN) + len(DATA_OPEN)
    block = page[start : page.index("</script>", start)]
    if "<" in block:
        raise InvariantBroken("outside text is data", f"the page's data block holds '<': {block!r}")
    _no_control("page's data block", block, allowed="")
    # As any JSON reads back: a lone high surrogate then a lone low one (text no wire or file
    # name holds) are one character's UTF-16 pair in JSON, whatever the writer.
    if json.loads(block) != json.loads(json.dumps(shown)):
        raise InvariantBroken("outside text is data", f"the data block reads back as {block!r}")


class _Caught(PlainApp[None]):
    """The sandbox's app base, keeping its notifications instead of showing them."""

    def __init__(self) -> None:
        super().__init__()
        self.caught: list[Notification] = []

    def post_message(self, message: Message) -> bool:
        """Keep a notification; anything else goes on as usual."""
        if isinstance(message, Notify):
            self.caught.append(message.notification)
            return True
        return super().post_message(message)


@functools.cache
def _app() -> _Caught:
    return _Caught()


def fuzz_notify(data: bytes) -> None:
    """See the module doc."""
    text, title = _texts(data)[:2]
    app = _app()
    app.notify(text, title=title, severity="error")
    note = app.caught.pop()
    # Rendered by Textual's own toast (its title is plain text there, never parsed).
    shown = Toast(replace(note, title="")).render().plain
    if shown != visible(text) or note.title != visible(title):
        raise InvariantBroken(
            "outside text is never markup",
            f"the notification of {text!r} shows {shown!r}, titled {note.title!r}",
        )
    _no_control("notification", shown + note.title, allowed="")


def _on_disk(name: str) -> str:
    """``name`` as the system gives a file's name back: any bytes but NUL, those that are
    not UTF-8 as lone surrogates."""
    return os.fsdecode(name.encode("utf-8", "surrogatepass").replace(b"\x00", b""))


def _run(t: list[str]) -> Run:
    """A run of four scripts, failed, broken, passed and flaky (those three runs of it),
    whose outside text is from ``t``."""
    root = Path("/scripts")
    failed = ScriptResult(
        root / _on_disk(f"test_{t[0]}.toml"),
        1.0,
        failures=(Failure(t[1], t[2], t[3]), Failure("step 2", "x", t[4])),
        session_id=t[5],
    )
    broken = ScriptResult(
        root / _on_disk(t[6]) / "test_b.toml",
        0.5,
        rule_breaks=(t[7], t[8]),
        unreachable=t[9],
        session_id=t[10] or None,
    )
    passed = ScriptResult(root / _on_disk(f"{t[11]}.toml"), 0.1)
    flaky = ScriptRuns(failed.path.with_name("test_flaky.toml"), (passed, failed, broken))
    return Run((*(ScriptRuns(r.path, (r,)) for r in (failed, broken, passed)), flaky))


def fuzz_junit(data: bytes) -> None:
    """See the module doc."""
    run = _run(_texts(data))
    document = junit_xml(run, Path("/scripts"))
    try:
        cases = ET.fromstring(document).iter("testcase")
    except ET.ParseError as exc:
        raise InvariantBroken(
            "a CI can always read the JUnit file", f"it is not well-formed XML ({exc})"
        ) from None
    _no_control("JUnit file", document.decode())
    for script, case in zip(run.scripts, cases, strict=True):
        # A line a problem, and one for the session when there are problems at all; a
        # script run more than once, one line more saying how many passed.
        lines = sum(
            len(r.problems) + (r.session_id is not None) if r.problems else 0 for r in script.runs
        ) + (len(script.runs) > 1)
        said = [(e.text or "").split("\n") for e in (*case.iter("failure"), *case.iter("error"))]
        if sum(map(len, said)) != lines:
            raise InvariantBroken(
                "outside text cannot add a line", f"{lines} lines of problems became {said!r}"
            )


#: The printer targets by name, for the fuzz registry.
PRINTERS: dict[str, tuple[Callable[[bytes], None], str]] = {
    "terminal": (fuzz_terminal, "hostile text through `sandbox sessions show`"),
    "markdown": (fuzz_markdown, "hostile text through the Markdown export"),
    "page": (fuzz_page, "hostile text in the HTML page's data block"),
    "notify": (fuzz_notify, "hostile text in an app notification"),
    "junit": (fuzz_junit, "hostile text in the JUnit file `sandbox test --junit` writes"),
}


def printer_escapes(examples: int = 2000, seed: int = 28) -> dict[str, int]:
    """``examples`` seeded random inputs, each through every printer target; an escape is
    one printer's output for one input that breaks its invariant (or a crash)."""
    rng = random.Random(seed)
    escapes = 0
    for _ in range(examples):
        data = rng.randbytes(rng.randint(0, 256))
        for run, _what in PRINTERS.values():
            try:
                run(data)
            except Exception:  # whatever a printer raises is an escape
                escapes += 1
    return {"printer_examples": examples, "printer_escapes": escapes}
