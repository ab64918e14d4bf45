"""Text from a brain, a caller or a file, made safe to show or to write: data, never control.

A brain's Error message, a caller's line or a stored value may hold anything. Printed raw,
an ESC sequence clears the screen, sets the window title or plants a link; a carriage
return or line feed forges a line; a bidi override makes the text read differently from
what it is; a tag character (U+E0000..U+E007F) hides words no one sees but a program reads;
and U+FFFF or a lone surrogate makes an XML file that does not parse, or a printer that
raises. :data:`CONTROL` is the one set of such characters, and each destination has one
rule for it, which every printer and every file a tool reads goes through:

- the terminal, Markdown, XML (the JUnit file) and an HTML page's text: :func:`visible`
  spells each one out (``\\x1b``, ``\\r``, ``\\u202e``, ``\\U000e0041``) so it is seen;
- JSON, printed or written as a file: :func:`json_text`, or :func:`escaped_json` for JSON
  another encoder wrote; each one is a ``\\uXXXX`` escape, the same JSON value;
- JSON embedded in an HTML page: :func:`json_text` with ``html``, ``<``, ``>``, ``&`` too;
- TOML (a caller script): :func:`toml_text`; each one is a ``\\u`` or ``\\U`` escape, the
  same text when read back (but a lone surrogate, which TOML cannot hold: it is spelt out).

Any other text is left as it is. A backslash is left as it is too: text that already reads
``\\x1b`` shows the same, which is ambiguous to read but harmless, as it controls nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import tomli_w

#: The bidi controls that reorder text (Trojan Source, CVE-2021-42574): the embeddings and
#: overrides U+202A..U+202E, the isolates U+2066..U+2069, and the marks LRM, RLM and ALM.
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
#: The noncharacters in the BMP: U+FDD0..U+FDEF, U+FFFE and U+FFFF (which are not XML
#: characters at all: a file holding one does not parse) ...
_BMP_NONCHARACTERS = "\ufdd0-\ufdef\ufffe\uffff"
#: ... and all 66: those and the last two code points of every other plane.
NONCHARACTERS = _BMP_NONCHARACTERS + "".join(
    f"{chr(plane << 16 | 0xFFFE)}-{chr(plane << 16 | 0xFFFF)}" for plane in range(1, 17)
)
#: The tag characters, invisible everywhere (once language tags; now a way to smuggle words).
TAGS = "\U000e0000-\U000e007f"
#: Lone surrogates: no terminal, XML or UTF-8 file can hold one (printing one raises).
SURROGATES = "\ud800-\udfff"
#: Every character the rules escape: C0, DEL and C1 controls, the line and paragraph
#: separators (a line break to some viewers and to JavaScript), the bidi controls, the
#: noncharacters, the tag characters and the lone surrogates. Together they hold every code
#: point XML 1.0 cannot (all C0 but tab, LF and CR; surrogates; U+FFFE, U+FFFF).
CONTROL = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{BIDI}{NONCHARACTERS}{TAGS}{SURROGATES}]")
#: What a rule scans text for: its characters in the BMP and every one beyond it, which is
#: then checked against :data:`CONTROL` (a class of many ranges beyond the BMP scans text
#: several times slower, and most text holds none). The JSON and TOML writers escape C0
#: themselves (raw, it is not valid in either).
_ABOVE_C0 = f"\x7f-\x9f\u2028\u2029{BIDI}{_BMP_NONCHARACTERS}{SURROGATES}\U00010000-\U0010ffff"
_VISIBLE_SCAN = re.compile(f"[\x00-\x1f{_ABOVE_C0}]")
_JSON_SCAN = re.compile(f"[{_ABOVE_C0}]")
#: In a page, also what could end or comment out its ``<script>`` element.
_JSON_IN_HTML_SCAN = re.compile(f"[<>&{_ABOVE_C0}]")
#: TOML's writer leaves a tab raw in a string.
_TOML_SCAN = re.compile(f"[\t{_ABOVE_C0}]")
_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def visible(text: str) -> str:
    """``text`` with every :data:`CONTROL` character spelt out as its escape."""
    return _VISIBLE_SCAN.sub(_spelt, text)


def quoted(text: str) -> str:
    """``text`` :func:`visible` between single quotes, the same quotes whatever it holds
    (a repr switches to double quotes for a text with an apostrophe, and escapes it)."""
    return f"'{visible(text)}'"


def _spelt(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if _unruled(char):
        return char
    if char in _SHORT:
        return _SHORT[char]
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _unruled(char: str) -> bool:
    """Whether a character a scan found is beyond the BMP and none of the rules'."""
    return char > "\uffff" and CONTROL.match(char) is None


def json_text(value: Any, *, indent: int | None = None, html: bool = False) -> str:
    """``value`` as JSON (non-ASCII text kept readable) in which every :data:`CONTROL`
    character is a ``\\uXXXX`` escape: the same JSON value, safe to print or to write. With
    ``html``, ``<``, ``>`` and ``&`` too, so that no text in it can end or comment out the
    ``<script>`` element it is embedded in."""
    return escaped_json(json.dumps(value, ensure_ascii=False, indent=indent), html=html)


def escaped_json(dumped: str, *, html: bool = False) -> str:
    """JSON text another encoder wrote (escaping C0, as JSON requires) with every other
    :data:`CONTROL` character a ``\\uXXXX`` escape, as :func:`json_text` writes it."""
    # These characters only ever occur inside JSON strings, where an escape means the same.
    return (_JSON_IN_HTML_SCAN if html else _JSON_SCAN).sub(_json_escape, dumped)


def _json_escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if _unruled(char):
        return char
    if code < 0x10000:
        return f"\\u{code:04x}"
    # JSON escapes a character beyond the BMP as its UTF-16 surrogate pair.
    code -= 0x10000
    return f"\\u{0xD800 | code >> 10:04x}\\u{0xDC00 | code & 0x3FF:04x}"


def toml_text(value: Mapping[str, Any]) -> str:
    """``value`` as a TOML document in which every :data:`CONTROL` character is a ``\\u``
    or ``\\U`` escape, read back as the same text; a lone surrogate, which TOML cannot
    escape, reads back spelt out (``\\ud800``, six characters)."""
    # The writer escapes C0 but tab and writes every string (and every key it must quote)
    # as a basic string, indenting with spaces: the characters left only ever occur inside
    # one, where an escape is read as the character.
    return _TOML_SCAN.sub(_toml_escape, tomli_w.dumps(value))


def _toml_escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if _unruled(char):
        return char
    if code == 0x09:
        return "\\t"
    if 0xD800 <= code <= 0xDFFF:
        return f"\\\\u{code:04x}"  # an escaped backslash: the text spelt out
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
