"""A unit's recorded heard text against what a recognizer heard in the speaker's audio.

The report says what the caller heard of each unit: the verbatim prefix the playout
released. ``sandbox audit`` checks that claim against the audio itself: Whisper's
transcript of the speaker leg around the unit. This module is the comparison, pure text.

Both sides are reduced to words the same way (:func:`audit_words`): lowercased,
punctuation dropped, spoken numbers as digits (:func:`~sandbox.judges.spoken.normalise`),
so "Two." and "2" and "two" are one word. The distance is the word-level edit distance
(insertions, deletions and substitutions of one word each).

The boundary rule: when a unit was cut (fewer words heard than generated), the word at the
cut may have been partly played. The wire counts a word heard once its first sample is
released, but a listener, or Whisper, may name a word from its first syllable or miss one
cut after it began. So for a cut unit the distance is the least of three readings of the
heard text: as recorded, without its last word, and with the next generated word added. A
unit played whole has no boundary and is read as recorded.
"""

from __future__ import annotations

import re

from sandbox.judges.spoken import normalise

#: The most words a unit may be off and still pass the audit (its exit status is 0);
#: the page marks the units beyond it as doubted.
TOLERATED_WORDS_OFF = 1
_NOT_WORD = re.compile(r"[^a-z0-9']")
#: A currency sign before a number, as the word said after it.
_SIGNS = {"$": "dollars", "£": "pounds", "€": "euros"}
#: British endings tiny.en writes the American way, applied to both sides alike, to words
#: of at least :data:`_SPELLING_MIN` letters ("harbour", "colour", "centre", "organise";
#: not "hour", "four" or "our").
_SPELLINGS = (("our", "or"), ("tre", "ter"), ("ise", "ize"), ("ised", "ized"))
_SPELLING_MIN = 6


def audit_words(text: str) -> list[str]:
    """``text`` as the audit compares it: lowercase words, digits for spoken numbers, no
    punctuation, a currency or percent sign as its word (Whisper writes "fifteen dollars"
    as "$15") and British spellings as American ones (tiny.en writes "Harbour" "Harbor")."""
    out = []
    for token in normalise(text).split():
        unit = _SIGNS.get(token[:1]) if token[1:2].isdigit() else None
        if token.endswith("%") and token[:-1].isdigit():
            unit = "percent"
        word = _NOT_WORD.sub("", token).strip("'")
        if not word:
            continue
        for british, american in _SPELLINGS:
            if len(word) >= _SPELLING_MIN and word.endswith(british):
                word = word[: -len(british)] + american
        out.append(word)
        if unit is not None:
            out.append(unit)
    return out


def word_distance(a: list[str], b: list[str]) -> int:
    """The word-level edit distance between ``a`` and ``b``."""
    previous = list(range(len(b) + 1))
    for i, word in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (word != other))
            )
        previous = current
    return previous[-1]


def words_off(heard: str, generated: str, transcribed: str) -> int:
    """How many words ``transcribed`` (the audio's text) is off ``heard`` (the recorded
    heard text of a unit whose whole text was ``generated``), with the boundary rule of
    the module docstring for a cut unit."""
    said = audit_words(transcribed)
    recorded = audit_words(heard)
    whole = audit_words(generated)
    readings = [recorded]
    if len(recorded) < len(whole):  # cut: the boundary word counts either way
        readings.append(whole[: len(recorded) + 1])
        if recorded:
            readings.append(recorded[:-1])
    return min(word_distance(said, reading) for reading in readings)


def verdict(off: int) -> str:
    """``agree``, or ``off by N word(s)``."""
    if off == 0:
        return "agree"
    return f"off by {off} word{'s' if off != 1 else ''}"


def doubted(off: int) -> bool:
    """Whether a unit this many words off fails the audit."""
    return off > TOLERATED_WORDS_OFF
