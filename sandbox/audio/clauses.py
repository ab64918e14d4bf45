"""Where streamed text may be handed to the synthesizer: complete clauses, as soon as they are.

Text arrives in chunks that may end mid-word. A unit's first clause goes to Piper as soon as
a comma, colon, semicolon or sentence end closes it, however short ("Sure,"), so first audio
waits for as little text and synthesis as possible: on two busy cores Piper takes ~110 ms for
"Sure," and 570-800 ms for the sentence it opens. The rest is synthesized while the first
clause plays. After that whole sentences go, which keeps Piper's prosody natural.

The marks are every catalog language's (:mod:`sandbox.audio.sentence_marks`).
"""

from __future__ import annotations

import re

from sandbox.audio.sentence_marks import CLAUSE_MARKS, FULL_STOPS

_ENDS = re.escape(FULL_STOPS + "…")
_SENTENCE_END = re.compile(rf"[{_ENDS}]+[\"')\]]*\s+")
_CLAUSE_END = re.compile(rf"[{re.escape(CLAUSE_MARKS)}]\s+|[{_ENDS}]+[\"')\]]*\s+")


def take_ready(text: str, first: bool) -> tuple[list[str], str]:
    """Split ``text`` into pieces ready to synthesize and the rest still being streamed.

    ``first``: nothing of this unit has gone to the synthesizer yet.
    """
    ready: list[str] = []
    start = 0
    if first:
        match = _CLAUSE_END.search(text)
        if match is None:
            return [], text
        ready.append(text[: match.end()])
        start = match.end()
    for match in _SENTENCE_END.finditer(text, start):
        ready.append(text[start : match.end()])
        start = match.end()
    return ready, text[start:]
