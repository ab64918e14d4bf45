"""Where streamed text may be handed to the synthesizer: complete clauses, as soon as they are.

Text arrives in chunks that may end mid-word. A unit's first clause goes to Piper as soon as
a comma, colon, semicolon or sentence end closes it, so first audio waits for as little text as
possible; after that whole sentences go, which keeps Piper's prosody natural.
"""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"[.!?…]+[\"')\]]*\s+")
_CLAUSE_END = re.compile(r"[,;:—]\s+|[.!?…]+[\"')\]]*\s+")
#: A first clause shorter than this many words waits for more (a lone "So," sounds clipped).
MIN_FIRST_CLAUSE_WORDS = 2


def take_ready(text: str, first: bool) -> tuple[list[str], str]:
    """Split ``text`` into pieces ready to synthesize and the rest still being streamed.

    ``first``: nothing of this unit has gone to the synthesizer yet.
    """
    ready: list[str] = []
    start = 0
    if first:
        for match in _CLAUSE_END.finditer(text):
            piece = text[: match.end()]
            is_sentence = _SENTENCE_END.fullmatch(text, match.start(), match.end()) is not None
            if is_sentence or len(piece.split()) >= MIN_FIRST_CLAUSE_WORDS:
                ready.append(piece)
                start = match.end()
                break
        if not ready:
            return [], text
    for match in _SENTENCE_END.finditer(text, start):
        ready.append(text[start : match.end()])
        start = match.end()
    return ready, text[start:]
