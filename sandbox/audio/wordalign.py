"""Which spoken phonemes belong to which word of the text: a small, pure alignment.

Piper reports how many samples each phoneme lasted, and espeak separates the phonemes
of a sentence into words with ``' '``. Those phoneme words are not the text's words:
espeak merges some (``of the`` is spoken ``ʌvðə``), expands others (``42`` is spoken
``fˈɔːɹɾi tˈuː``, ``$5`` is ``dˈɑːlɚ fˈaɪv``) and drops punctuation. So each text word
is given its *reference* phonemes (espeak's phonemes of the word said on its own), and
the references are aligned symbol by symbol with what was actually spoken, by a banded
edit distance. Every spoken phoneme that lines up with a reference phoneme belongs to
that reference's word; stress and length marks, and phonemes that line up with nothing,
join the word next to them inside the same spoken word. Spaces, punctuation and the
sentence markers belong to no word: they are the gaps between words.

The result is monotone by construction: word ``i`` never starts before word ``i - 1``
ends, so the words of a clip are heard in the order they are written.
"""

# IPA is the subject here: its letters only look like Latin ones.
# ruff: noqa: RUF001, RUF002

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

_TOKEN = re.compile(r"\S+")

#: Substituting one vowel for another costs less than any other substitution: in-context
#: speech reduces vowels ("the" is ``ðə`` alone and ``ðɪ`` before a vowel).
_VOWELS = frozenset("aeiouyæɐɑɒɔəɘɚɛɜɝɞɤɨɪʉʊʌʏøœɶɵ")
_VOWEL_SWAP = 0.6
#: Half-width of the band around the diagonal the alignment may wander in, in symbols,
#: plus a tenth of the longer side: texts are aligned sentence-sized in practice.
_BAND = 24


@dataclass(frozen=True)
class Token:
    """One word of a text: a run of non-space characters, punctuation attached."""

    text: str
    start: int
    end: int


def split_words(text: str) -> list[Token]:
    """The text's words as the call core counts them: whitespace-separated tokens."""
    return [Token(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def is_sound(symbol: str) -> bool:
    """Whether a phoneme symbol is a sound of its own (a letter), not a mark or a gap."""
    return bool(symbol) and unicodedata.category(symbol[0]) in ("Ll", "Lu", "Lo", "Lt")


def _is_mark(symbol: str) -> bool:
    # Stress, length and palatalization marks, combining diacritics, tone digits: they
    # modify the sound next to them and belong to its word.
    return bool(symbol) and unicodedata.category(symbol[0]) in ("Lm", "Mn", "Mc", "Me", "Nd")


def _cost(a: str, b: str) -> float:
    if a == b:
        return 0.0
    if a in _VOWELS and b in _VOWELS:
        return _VOWEL_SWAP
    return 1.0


def align(refs: Sequence[Sequence[str]], spoken: Sequence[str]) -> list[tuple[int, int]]:
    """For each text word, the half-open range of ``spoken`` indices that say it.

    ``refs[i]`` is the reference phoneme symbols of text word ``i``; ``spoken`` is the
    symbols actually spoken, gaps included. A word whose reference lines up with nothing
    gets an empty range placed where the previous word ends (or where the next begins),
    so the ranges are in order and never overlap.
    """
    ref_sounds = [(s, w) for w, ref in enumerate(refs) for s in ref if is_sound(s)]
    spoken_sounds = [(s, k) for k, s in enumerate(spoken) if is_sound(s)]
    owner: list[int | None] = [None] * len(spoken)
    for ref_index, spoken_index in _match(
        [s for s, _ in ref_sounds], [s for s, _ in spoken_sounds]
    ):
        owner[spoken_sounds[spoken_index][1]] = ref_sounds[ref_index][1]
    _fill_within_spoken_words(spoken, owner)
    return _ranges(len(refs), owner)


def _match(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """Index pairs ``(i, j)`` where ``a[i]`` lines up with ``b[j]`` in a cheapest alignment."""
    n, m = len(a), len(b)
    if n == 0 or m == 0:
        return []
    width = _BAND + max(n, m) // 10

    def band(i: int) -> tuple[int, int]:
        # From the diagonal at row i to the diagonal at row i + 1, widened: consecutive
        # rows always overlap, so the corner (n, m) stays reachable however long b is.
        return max(0, i * m // n - width), min(m, -(-(i + 1) * m // n) + width)

    # Row i keeps cells j in [lo, hi]; moves: 0 = diagonal, 1 = skip a[i-1], 2 = skip b[j-1].
    inf = float("inf")
    rows: list[tuple[int, list[float], bytearray]] = []
    lo, hi = band(0)
    prev_lo, prev = lo, [float(j) for j in range(lo, hi + 1)]
    rows.append((lo, prev, bytearray([2] * (hi - lo + 1))))
    for i in range(1, n + 1):
        lo, hi = band(i)
        cur = [inf] * (hi - lo + 1)
        moves = bytearray(hi - lo + 1)
        prev_hi = prev_lo + len(prev) - 1
        sym = a[i - 1]
        for j in range(lo, hi + 1):
            best, move = inf, 0
            if prev_lo <= j - 1 <= prev_hi:
                best = prev[j - 1 - prev_lo] + _cost(sym, b[j - 1])
            if prev_lo <= j <= prev_hi and prev[j - prev_lo] + 1.0 < best:
                best, move = prev[j - prev_lo] + 1.0, 1
            if j > lo and cur[j - 1 - lo] + 1.0 < best:
                best, move = cur[j - 1 - lo] + 1.0, 2
            cur[j - lo], moves[j - lo] = best, move
        rows.append((lo, cur, moves))
        prev_lo, prev = lo, cur
    pairs: list[tuple[int, int]] = []
    i, j = n, m
    while i > 0 and j > 0:
        row_lo, _, moves = rows[i]
        move = moves[j - row_lo]
        if move == 0:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif move == 1:
            i -= 1
        else:
            j -= 1
    pairs.reverse()
    return pairs


def _fill_within_spoken_words(spoken: Sequence[str], owner: list[int | None]) -> None:
    """Give marks and unmatched sounds the word of their neighbour in the same spoken word."""
    start = 0
    while start < len(spoken):
        if not (is_sound(spoken[start]) or _is_mark(spoken[start])):
            start += 1
            continue
        end = start
        while end < len(spoken) and (is_sound(spoken[end]) or _is_mark(spoken[end])):
            end += 1
        last: int | None = None
        for k in range(start, end):  # forward: take the word of the sound before
            if owner[k] is None:
                owner[k] = last
            last = owner[k]
        following: int | None = None
        for k in range(end - 1, start - 1, -1):  # backward: leading ones take the next
            if owner[k] is None:
                owner[k] = following
            following = owner[k]
        start = end


def _ranges(words: int, owner: Sequence[int | None]) -> list[tuple[int, int]]:
    first: list[int | None] = [None] * words
    stop = [0] * words
    for k, w in enumerate(owner):
        if w is None:
            continue
        if first[w] is None:
            first[w] = k
        stop[w] = k + 1
    ranges: list[tuple[int, int]] = []
    for w in range(words):
        begin = first[w]
        if begin is not None:
            ranges.append((begin, stop[w]))
            continue
        # Said by nobody: an empty range where the previous word ends, else where the
        # next said word begins.
        if ranges:
            at = ranges[-1][1]
        else:
            at = next((b for b in first[w + 1 :] if b is not None), len(owner))
        ranges.append((at, at))
    return ranges
