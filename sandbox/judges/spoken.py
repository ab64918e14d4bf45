"""Spoken forms made comparable: number words become digits, the same way on both sides.

A caller says "oh seven seven double four" and "the twenty-third at half past two"; a bot
reads back "07744" and "the 23rd at 2:30". Both go through :func:`normalise`, which
lowercases, splits punctuation off words, and turns each spoken number into digits ("oh
seven seven double four" → ``0 7 7 44``, "twenty-third" → ``23rd``, "nine hundred" →
``900``), so a value is found by the same patterns whichever way it was said.
"""

from __future__ import annotations

import re

_UNITS = {
    "zero": 0, "nought": 0, "nil": 0, "one": 1, "two": 2, "three": 3, "four": 4,
    "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
}  # fmt: skip
_TEENS = {
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
}  # fmt: skip
#: "oh" (and a lone "o") is a zero only beside another digit: "oh seven", not "oh, okay".
_MAYBE_ZERO = {"oh", "o"}
_REPEAT = {"double": 2, "triple": 3}
#: Punctuation split off a word; what stays inside (an email's dots, a time's colon) stays.
_EDGE = re.compile(r"^([\"'(\[]*)(.*?)([\"')\].,!?;:]*)$")


def normalise(text: str) -> str:
    """``text`` lowercased, punctuation spaced off, spoken numbers as digits."""
    words = _words(text)
    out: list[str] = []
    i = 0
    while i < len(words):
        number, used = _number(words, i)
        if number is None:
            out.append(words[i])
            i += 1
        else:
            out.append(number)
            i += used
    return " ".join(out)


def ordinal(n: int) -> str:
    """``23`` → ``23rd``."""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def _words(text: str) -> list[str]:
    # "twenty-third", "oh-seven": a hyphen between letters joins spoken words.
    text = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", text.lower())
    out: list[str] = []
    for raw in text.split():
        match = _EDGE.match(raw)
        assert match is not None  # the pattern matches any string
        lead, core, trail = match.groups()
        out += [*lead, *([core] if core else []), *trail]
    return out


def _is_digitish(word: str) -> bool:
    return word.isdigit() or word in _UNITS or word in _REPEAT or word in _MAYBE_ZERO


def _number(words: list[str], i: int) -> tuple[str | None, int]:
    """The number spoken at ``words[i]`` as digits, and how many words it took."""
    word = words[i]
    after = words[i + 1] if i + 1 < len(words) else ""
    if word in _MAYBE_ZERO:
        before = words[i - 1] if i > 0 else ""
        return ("0", 1) if _is_digitish(after) or _is_digitish(before) else (None, 0)
    if word in _REPEAT and (after in _UNITS or after in _MAYBE_ZERO):
        digit = str(_UNITS.get(after, 0))
        return digit * _REPEAT[word], 2
    if word in _ORDINALS:
        return ordinal(_ORDINALS[word]), 1
    if word in _TENS:
        tens = _TENS[word]
        if after in _UNITS and _UNITS[after] > 0:
            return str(tens + _UNITS[after]), 2
        if after in _ORDINALS and _ORDINALS[after] < 10:
            return ordinal(tens + _ORDINALS[after]), 2
        return str(tens), 1
    if word in _TEENS:
        return str(_TEENS[word]), 1
    if word in _UNITS:
        if after == "hundred":
            rest, used = _below_hundred(words, i + 2)
            return str(_UNITS[word] * 100 + rest), 2 + used
        if after == "thousand":
            return str(_UNITS[word] * 1000), 2
        return str(_UNITS[word]), 1
    return None, 0


def _below_hundred(words: list[str], i: int) -> tuple[int, int]:
    """After "nine hundred": "and twelve", "twelve", "five" (with what it took), or nothing."""
    skip = 1 if i < len(words) and words[i] == "and" else 0
    j = i + skip
    word = words[j] if j < len(words) else ""
    if word in _TEENS:
        return _TEENS[word], skip + 1
    if word in _TENS:
        nxt = words[j + 1] if j + 1 < len(words) else ""
        if nxt in _UNITS and _UNITS[nxt] > 0:
            return _TENS[word] + _UNITS[nxt], skip + 2
        return _TENS[word], skip + 1
    if skip and word in _UNITS:
        return _UNITS[word], skip + 1
    return 0, 0
