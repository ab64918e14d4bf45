"""A unit's recorded heard text against what a recognizer heard in the speaker's audio.

The report says what the caller heard of each unit: the verbatim prefix the playout
released. ``sandbox audit`` checks that claim against the audio itself: Whisper's
transcript of the speaker leg around the unit. This module is the comparison, pure text.

Both sides are reduced to words the same way (:func:`audit_words`): lowercased,
punctuation dropped, spoken numbers as digits (:func:`~sandbox.judges.spoken.normalise`),
so "Two." and "2" and "two" are one word. The distance is the word-level edit distance
(insertions, deletions and substitutions of one word each; a word split or joined is one at
most, see :func:`words_off`).

The boundary rule: when a unit was cut (fewer words heard than generated), the word at the
cut may have been partly played. The wire counts a word heard once its first sample is
released, but a listener, or Whisper, may name a word from its first syllable or miss one
cut after it began. So for a cut unit the distance is the least of three readings of the
heard text: as recorded, without its last word, and with the next generated word added. A
unit played whole has no word after its last, so what Whisper reads past it is not counted.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

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
#: Two words Whisper reads as one, or one as two, count as one word off when their letters
#: are this alike (difflib's ratio: "bargion" against "barge in" is 0.86), and as none when
#: they are the same letters ("icecream", "ice cream").
JOINED_LIKENESS = 0.75


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


def words_off(heard: str, generated: str, transcribed: str) -> int:
    """How many words ``transcribed`` (Whisper's text of the unit's clip) is off ``heard``
    (the unit's recorded heard text; ``generated`` is its whole text).

    The wire's rule for what is recorded: "Finalize.heard_text is the delivered prefix —
    what was actually played, not what was generated." and "It is accurate to about one word
    either way". So, beyond the one word :data:`TOLERATED_WORDS_OFF`
    allows, the comparison forgives only what cannot show the record wrong:

    * A word Whisper splits or joins ("barge in", "bargion" for "barge-in"; "icecream" for
      "ice cream") counts as one word at most (:func:`transcript_distance`).
    * A unit recorded as played whole has no word after its last one, so words Whisper reads
      past it (a repeat of its last words, or "Okay.", "Thank you." made up from the silence)
      cost nothing. Its missing words still count: a clip that stops early fails.
    * A cut unit's word at the cut counts either way (the module's boundary rule): the
      recorded text, without its last word, or with the next generated word. Words past that
      count: a clip that runs on past the recorded prefix fails.
    """
    said = audit_words(transcribed)
    recorded = audit_words(heard)
    whole = audit_words(generated)
    if len(recorded) >= len(whole):
        return transcript_distance(said, recorded, free_tail=bool(recorded))
    cuts = [recorded, whole[: len(recorded) + 1], *([recorded[:-1]] if recorded else [])]
    return min(transcript_distance(said, cut, free_tail=False) for cut in cuts)


def transcript_distance(said: list[str], recorded: list[str], *, free_tail: bool) -> int:
    """The word-level edit distance from ``recorded`` to ``said``, where two words taken as
    one (either way) cost :func:`_joined`; with ``free_tail``, words said after all of
    ``recorded`` cost nothing."""
    # rows[i][j]: the distance between said[:i] and recorded[:j].
    rows = [list(range(len(recorded) + 1))]
    for i, word in enumerate(said, 1):
        row = [i]
        for j, other in enumerate(recorded, 1):
            best = min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + (word != other))
            if i > 1:
                best = min(best, rows[i - 2][j - 1] + _joined(other, said[i - 2] + word))
            if j > 1:
                best = min(best, rows[i - 1][j - 2] + _joined(word, recorded[j - 2] + other))
            row.append(best)
        rows.append(row)
    return min(row[-1] for row in rows) if free_tail else rows[-1][-1]


def _joined(one: str, two: str) -> int:
    """What one word costs read as two words (``two`` their letters run together): none when
    the letters are the same, one when alike (:data:`JOINED_LIKENESS`), else a word each."""
    if one == two:
        return 0
    return 1 if SequenceMatcher(None, one, two).ratio() >= JOINED_LIKENESS else 2


def verdict(off: int) -> str:
    """``agree``, or ``off by N word(s)``."""
    if off == 0:
        return "agree"
    return f"off by {off} word{'s' if off != 1 else ''}"


def doubted(off: int) -> bool:
    """Whether a unit this many words off fails the audit."""
    return off > TOLERATED_WORDS_OFF
