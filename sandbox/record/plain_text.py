"""Text from a brain, a caller or a file, made safe to show: data, never control.

A brain's Error message, a caller's line or a stored value may hold anything. Printed raw,
an ESC sequence clears the screen, sets the window title or plants a link; a carriage
return or line feed forges a line; a bidi override makes the text read differently from
what it is. :func:`visible` spells each such character out (``\\x1b``, ``\\r``, ``\\u202e``)
so it is seen, and does nothing to any other text. Every printer applies it to what came
from outside: the terminal summaries, the Markdown and HTML exports, the app's panes and
notifications. :func:`json_text` is the same for JSON, printed or embedded in a page.

A backslash is left as it is: text that already reads ``\\x1b`` shows the same, which is
ambiguous to read but harmless, as it controls nothing.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: The bidi controls that reorder text (Trojan Source, CVE-2021-42574): the embeddings and
#: overrides U+202A..U+202E, the isolates U+2066..U+2069, and the marks LRM, RLM and ALM.
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
#: Every character :func:`visible` spells out: C0, DEL and C1 controls, the bidi controls,
#: the line and paragraph separators (a line break to some viewers and to JavaScript), and
#: lone surrogates (which no terminal can encode: printing one raises).
CONTROL = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff{BIDI}]")
_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
#: What :func:`json_text` writes as ``\uXXXX`` (json.dumps escapes C0 itself) ...
_JSON_UNSAFE = re.compile(f"[\x7f-\x9f\u2028\u2029\ud800-\udfff{BIDI}]")
#: ... and, for JSON in a page, what could end or comment out its ``<script>`` element.
_JSON_IN_HTML = re.compile(f"[<>&\x7f-\x9f\u2028\u2029\ud800-\udfff{BIDI}]")


def visible(text: str) -> str:
    """``text`` with every :data:`CONTROL` character spelt out as its escape."""
    return CONTROL.sub(_spelt, text)


def quoted(text: str) -> str:
    """``text`` :func:`visible` between single quotes, the same quotes whatever it holds
    (a repr switches to double quotes for a text with an apostrophe, and escapes it)."""
    return f"'{visible(text)}'"


def _spelt(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _SHORT.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def json_text(value: Any, *, indent: int | None = None, html: bool = False) -> str:
    """``value`` as JSON (non-ASCII text kept readable) in which every character that could
    control a terminal or reorder text is a ``\\uXXXX`` escape: the same JSON value, safe
    to print. With ``html``, ``<``, ``>`` and ``&`` too, so that no text in it can end or
    comment out the ``<script>`` element it is embedded in."""
    dumped = json.dumps(value, ensure_ascii=False, indent=indent)
    # These characters only ever occur inside JSON strings, where an escape means the same.
    unsafe = _JSON_IN_HTML if html else _JSON_UNSAFE
    return unsafe.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)
