"""Heard truth: walk played words through a unit's own text with a forward-only cursor.

The playout clock reports the words it released. No label says which characters of
the relayed text a played word stands for, so the unit's text is tokenised into words
and each played word is matched at the cursor. A played word that matches nothing
within a short look-ahead is skipped and counted; the cursor never moves back and
never leaves the unit, so the heard text is always a verbatim prefix of the unit's own
text and can only be shorter than what was played, never longer.

Relaying a chunk costs time in proportion to the chunk, never to the unit: only the new
text is tokenised (a word the chunk continues is extended, its key worked out when a
played word is first compared with it), and the text is joined only when read.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

_TOKEN = re.compile(r"\S+")
_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)

#: How many of the unit's words a played word may jump over to find its match
#: (a synthesizer that swallowed a word must not stall the cursor for good).
LOOKAHEAD = 3


def normalize(word: str) -> str:
    """Compare words by their letters and digits only, case-insensitively."""
    return _NON_WORD.sub("", word).casefold()


@dataclass
class HeardCursor:
    """The forward-only alignment of one unit's played words onto its text."""

    _parts: list[str] = field(default_factory=list)
    _joined: str = ""  # the parts joined, as of _joined_parts of them
    _joined_parts: int = 0
    chars: int = 0  # characters relayed so far
    _starts: list[int] = field(default_factory=list)
    _ends: list[int] = field(default_factory=list)
    #: Each word's comparison key; None until looked at (the last word may still grow).
    _keys: list[str | None] = field(default_factory=list)
    _open: bool = False  # the text ends inside its last word: the next chunk may continue it
    _cursor: int = 0
    heard_chars: int = 0
    _words: int | None = None  # the word count, once settled (the word index is gone)

    @property
    def text(self) -> str:
        """Everything relayed, in order."""
        if self._joined_parts != len(self._parts):
            self._joined = "".join(self._parts)
            self._parts = [self._joined] if self._joined else []
            self._joined_parts = len(self._parts)
        return self._joined

    def extend(self, more: str) -> None:
        """Append relayed text; a word split across chunks joins up."""
        if not more:
            return
        assert self._words is None, "a settled unit takes no more text"
        base = self.chars
        self._parts.append(more)
        self.chars += len(more)
        for match in _TOKEN.finditer(more):
            if match.start() == 0 and self._open:
                self._ends[-1] = base + match.end()  # the open word goes on
                self._keys[-1] = None
                continue
            self._starts.append(base + match.start())
            self._ends.append(base + match.end())
            self._keys.append(None)
        self._open = not more[-1].isspace()

    def played(self, word: str) -> bool:
        """Record one played word; returns False when it matched nothing and was skipped."""
        assert self._words is None, "a settled unit plays no more words"
        key = normalize(word)
        if key:
            stop = min(len(self._ends), self._cursor + LOOKAHEAD + 1)
            for index in range(self._cursor, stop):
                if self._key(index) == key:
                    self._cursor = index + 1
                    self.heard_chars = self._ends[index]
                    return True
        return False

    def settle(self) -> None:
        """The unit's heard text is final: nothing more is relayed or played. Keeps the text
        and the counts and lets the word index go, which is most of what a long unit holds
        (~5 KB for a 36-word reply) and a call keeps every unit to its end."""
        self._words = len(self._ends)
        self._joined = self.text
        self._parts = [self._joined] if self._joined else []
        self._starts, self._ends, self._keys = [], [], []

    def played_all(self) -> None:
        """Every word of the unit reached the output: the whole text was heard."""
        self._cursor = self.words_total
        self.heard_chars = self.chars

    def heard_through(self, chars: int) -> None:
        """The heard text is the text's first ``chars`` characters, as the core sealed it (a
        reader folding the core's record): the cursor stands after the last word ending there."""
        assert self._words is None, "a settled unit's heard text is final"
        self.heard_chars = min(chars, self.chars)
        self._cursor = bisect.bisect_right(self._ends, self.heard_chars)

    @property
    def heard(self) -> str:
        """The delivered prefix: the unit's text up to the end of the last matched word."""
        return self.text[: self.heard_chars]

    @property
    def words_heard(self) -> int:
        """How many of the unit's words lie inside the heard prefix."""
        return self._cursor

    @property
    def words_total(self) -> int:
        """How many words the unit's text holds."""
        return len(self._ends) if self._words is None else self._words

    def _key(self, index: int) -> str:
        key = self._keys[index]
        if key is None:
            key = normalize(self.text[self._starts[index] : self._ends[index]])
            self._keys[index] = key
        return key
