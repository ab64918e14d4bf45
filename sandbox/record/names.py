"""Names on a call, guarded: a form of address is never a name, and a name the bot uses
that the caller never said is flagged.

Speech makes names fragile: a transcript turns "love" or "mate" into a proper noun, and a
bot that says "Thanks, Sarah" to a caller who never said Sarah has invented a person.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

#: Words people are addressed by that are not their names.
FORMS_OF_ADDRESS = frozenset(
    {
        "sir", "madam", "ma'am", "mam", "maam", "miss", "mister", "mr", "mrs", "ms", "love",
        "luv", "mate", "boss", "buddy", "bud", "pal", "dear", "darling", "honey", "hon",
        "hun", "sweetheart", "sweetie", "babe", "friend", "chief", "guv", "man", "dude",
        "bro", "fella", "lad", "lass", "son", "sport", "champ", "folks", "petal", "duck",
        "pet", "my", "gentlemen", "ladies", "everyone", "there", "all", "guys", "caller",
        "customer", "lady", "gent", "squire", "cock", "chap", "doll", "sugar", "kid",
    }
)  # fmt: skip
#: Capitalised words after "Thanks," that are never a name.
_NOT_NAMES = frozenset(
    {
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
        "january", "february", "march", "april", "may", "june", "july", "august",
        "september", "october", "november", "december", "i", "we", "you", "it", "that",
        "this", "so", "and", "but", "the", "a", "an", "please", "again", "today", "now",
        "then", "too", "anyway", "everybody", "goodbye", "bye", "ok", "okay",
    }
)  # fmt: skip
_GREETING = (
    r"(?:hi|hello|hey|thanks|thank you|cheers|bye|goodbye|of course|sure|okay|ok|right|"
    r"great|sorry|welcome|morning|good morning|good afternoon|good evening|no problem|"
    r"absolutely|certainly|perfect|lovely|yes|brilliant|nice to meet you|take care)"
)
#: "Thanks, Sarah." / "Hello John!" / "... for you, Sarah?": a word said to the caller.
_VOCATIVE = re.compile(
    rf"(?i:\b{_GREETING})[,!]?\s+([A-Z][\w'-]*)(?=\s*(?:[,.!?]|$))"
    r"|,\s*([A-Z][\w'-]*)\s*[.!?]"
)
#: "My name is Sarah", "this is Sarah", "call me Sarah", "Sarah speaking", "I'm Sarah".
_INTRODUCED = re.compile(
    r"\b(?:my name is|name's|this is|call me|it's|i'm|i am)\s+([A-Za-z][\w'-]*)"
    r"|\b([A-Z][\w'-]*)\s+speaking\b",
    re.IGNORECASE,
)
_THE_CALLER = re.compile(r"\bthe caller\b", re.IGNORECASE)


def is_form_of_address(word: str) -> bool:
    """``word`` is a way of addressing someone ("sir", "mate"), never their name."""
    return word.strip(" ,.!?").lower() in FORMS_OF_ADDRESS


def addressed_as(bot_line: str) -> list[str]:
    """The words the bot addressed the caller by in ``bot_line`` (names and forms of
    address alike), in order."""
    out = []
    for match in _VOCATIVE.finditer(bot_line):
        word = match.group(1) or match.group(2)
        if word.lower() not in _NOT_NAMES:
            out.append(word)
    return out


def introduced(caller_line: str) -> str | None:
    """The name the caller gave in ``caller_line``, if what they gave is a name (a form of
    address — "call me boss" — is refused: see :func:`refused`)."""
    return next((word.capitalize() for word, ok in _offered(caller_line) if ok), None)


def refused(caller_line: str) -> str | None:
    """A form of address the caller offered where a name goes ("call me boss"), if any."""
    return next((word for word, ok in _offered(caller_line) if not ok), None)


def _offered(caller_line: str) -> Iterator[tuple[str, bool]]:
    """Each word offered as the caller's name, and whether it may be kept as one."""
    for match in _INTRODUCED.finditer(caller_line):
        word = match.group(1) or match.group(2)
        # "I'm fine", "it's me": only a capitalised word after the looser openers.
        strict = match.group(0).lower().startswith(("my name", "name's", "call me"))
        if is_form_of_address(word):
            yield word, False
        elif word.lower() not in _NOT_NAMES and (strict or word[0].isupper()):
            yield word, True


def said_by_caller(name: str, caller_lines: Sequence[str]) -> bool:
    """The caller said ``name`` (as a word, any case) in one of their lines."""
    pattern = re.compile(rf"\b{re.escape(name)}\b", re.IGNORECASE)
    return any(pattern.search(line) for line in caller_lines)


def calls_them_the_caller(bot_line: str) -> bool:
    """The bot spoke of the person on the line as "the caller"."""
    return bool(_THE_CALLER.search(bot_line))
