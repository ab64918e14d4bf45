"""Heard truth: walk played words through a unit's own text with a forward-only cursor.

The playout clock reports the words it released. No label says which characters of
the relayed text a played word stands for, so the unit's text is tokenised into words
and each played word is matched at the cursor. A played word that matches nothing
within a short look-ahead is skipped and counted; the cursor never moves back and
never leaves the unit, so the heard text is always a verbatim prefix of the unit's own
text and can only be shorter than what was played, never longer.
"""

from __future__ import annotations

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

    text: str = ""
    _ends: list[int] = field(default_factory=list)
    _keys: list[str] = field(default_factory=list)
    _cursor: int = 0
    heard_chars: int = 0

    def extend(self, more: str) -> None:
        """Append relayed text. Tokens are recomputed so a word split across chunks joins."""
        self.text += more
        self._ends = []
        self._keys = []
        for match in _TOKEN.finditer(self.text):
            self._ends.append(match.end())
            self._keys.append(normalize(match.group()))

    def played(self, word: str) -> bool:
        """Record one played word; returns False when it matched nothing and was skipped."""
        key = normalize(word)
        if key:
            stop = min(len(self._keys), self._cursor + LOOKAHEAD + 1)
            for index in range(self._cursor, stop):
                if self._keys[index] == key:
                    self._cursor = index + 1
                    self.heard_chars = self._ends[index]
                    return True
        return False

    def played_all(self) -> None:
        """Every word of the unit reached the output: the whole text was heard."""
        self._cursor = len(self._keys)
        self.heard_chars = len(self.text)

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
        return len(self._keys)
