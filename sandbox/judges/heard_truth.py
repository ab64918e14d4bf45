"""A unit's recorded heard text against what a recognizer heard in the speaker's audio.

The report says what the caller heard of each unit: the verbatim prefix the playout
released. ``sandbox audit`` checks that claim against the audio itself: Whisper's
transcript of the speaker leg around the unit. This module is the comparison, pure text.

Both sides are reduced to words the same way (:func:`audit_words`): lowercased,
punctuation dropped, spoken numbers as digits (:func:`~sandbox.judges.spoken.normalise`),
so "Two." and "2" and "two" are one word. The distance is the word-level edit distance
(insertions, deletions and substitutions of one word each; a word split or joined is one at
most, see :func:`words_off`).

What the record claims beyond the generated text is one thing: where the unit was cut,
that is how many of its words were heard. So the comparison finds the cut the audio supports
(the prefix of the generated text that Whisper's transcript aligns with at least cost, see
:func:`supported_cut`) and counts the words between it and the recorded cut. A word Whisper
mishears in the middle of a unit ("I say single classes" for "A single class is") costs
every candidate cut alike and so cannot move it: it is the recognizer's error, not the
record's. A recorded text that is not a prefix of the generated one is off by its changed
words as well.

The boundary rule: when a unit was cut (fewer words heard than generated), the word at the
cut may have been partly played. The wire counts a word heard once its first sample is
released, but a listener, or Whisper, may name a word from its first syllable or miss one
cut after it began. So for a cut unit one word either way of the recorded cut is free.
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
    """How many words the cut ``heard`` records (the unit's recorded heard text; ``generated``
    is its whole text) is off the cut ``transcribed`` (Whisper's text of the unit's clip)
    supports.

    The wire's rule for what is recorded: "Finalize.heard_text is the delivered prefix —
    what was actually played, not what was generated." and "It is accurate to about one word
    either way". So, beyond the one word :data:`TOLERATED_WORDS_OFF` allows:

    * Whisper's own errors inside what was played cost nothing: a misheard, split or joined
      word ("bargion" for "barge-in", "icecream" for "ice cream") weighs on every cut alike.
    * Words Whisper reads past the unit's last one (a repeat, or "Okay.", "Thank you." made
      up from the silence) cost nothing: no cut explains them better than the whole.
    * A clip that stops early puts the supported cut where it stops, and a made-up "Thank
      you." in place of the missing words does not move it (a made-up word aligns with a
      generated one only at more cost than as an extra word).
    * A cut unit's word at the cut counts either way (the module's boundary rule): a clip
      running on past the recorded cut by two words or more is off.
    """
    said = audit_words(transcribed)
    recorded = audit_words(heard)
    whole = audit_words(generated)
    changed = sum(mine != theirs for mine, theirs in zip(recorded, whole, strict=False))
    apart = abs(supported_cut(said, whole, len(recorded)) - len(recorded))
    if len(recorded) < len(whole):
        apart = max(0, apart - 1)
    return changed + apart


#: The costs of aligning a transcript with a text: a word in one and not the other, a word
#: read as an unalike one (dearer than an extra word, so a made-up word is taken as extra
#: rather than as a generated word said), and as an alike one ("on" for "one"; cheaper, so a
#: misheard last word still counts as said).
_EXTRA, _UNALIKE, _ALIKE = 2, 3, 1
#: Words this alike (difflib's ratio) are one word misheard or, as two words run together
#: ("bargion" against "barge in" is 0.86), one word split or joined.
JOINED_LIKENESS = 0.75


def supported_cut(said: list[str], whole: list[str], recorded: int) -> int:
    """The number of ``whole``'s words ``said`` (a transcript's words) aligns with at least
    cost; of equally cheap cuts, the nearest to ``recorded`` (the record gets the doubt)."""
    costs = _distances(said, whole)[-1]
    cheapest = [k for k, cost in enumerate(costs) if cost == min(costs)]
    return min(cheapest, key=lambda k: abs(k - recorded))


def _distances(said: list[str], text: list[str]) -> list[list[int]]:
    """rows[i][j]: the cost of aligning said[:i] with text[:j]; a word split or joined either
    way costs :func:`_joined`."""
    rows = [[j * _EXTRA for j in range(len(text) + 1)]]
    for i, word in enumerate(said, 1):
        row = [i * _EXTRA]
        for j, other in enumerate(text, 1):
            best = min(
                rows[i - 1][j] + _EXTRA,
                row[j - 1] + _EXTRA,
                rows[i - 1][j - 1] + _substitution(word, other),
            )
            if i > 1:
                best = min(best, rows[i - 2][j - 1] + _joined(other, said[i - 2] + word))
            if j > 1:
                best = min(best, rows[i - 1][j - 2] + _joined(word, text[j - 2] + other))
            row.append(best)
        rows.append(row)
    return rows


def _substitution(one: str, two: str) -> int:
    if one == two:
        return 0
    return _ALIKE if _alike(one, two) else _UNALIKE


def _alike(one: str, two: str) -> bool:
    return SequenceMatcher(None, one, two).ratio() >= JOINED_LIKENESS


def _joined(one: str, two: str) -> int:
    """What one word costs read as two words (``two`` their letters run together): none when
    the letters are the same, :data:`_ALIKE` when alike (:data:`JOINED_LIKENESS`), else an
    unalike word and an extra one."""
    if one == two:
        return 0
    return _ALIKE if _alike(one, two) else _UNALIKE + _EXTRA


def verdict(off: int) -> str:
    """``agree``, or ``off by N word(s)``."""
    if off == 0:
        return "agree"
    return f"off by {off} word{'s' if off != 1 else ''}"


def doubted(off: int) -> bool:
    """Whether a unit this many words off fails the audit."""
    return off > TOLERATED_WORDS_OFF
