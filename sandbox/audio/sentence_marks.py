"""The marks that end a sentence or ask a question in every catalog language's script.

One table for the two readers of written sentence ends: the clause splitter that feeds the
synthesizer (:mod:`sandbox.audio.clauses`) and the endpointer's reading of a transcript
(:mod:`sandbox.audio.endpointer`). Besides Latin's: the danda (।, ॥) ends a sentence in
Hindi, Bengali and the other Indic scripts; Urdu ends one with the Arabic full stop
(U+06D4), asks with ؟ and pauses at ،; Whisper writes the full-width marks of Chinese and
Japanese (the ideographic full stop and the full-width ? and !).
"""

from __future__ import annotations

#: Marks that ask a question.
QUESTION_MARKS = "?\u061f\uff1f"
#: Marks that end a sentence (a question's among them), the ellipsis not: it trails off.
FULL_STOPS = ".!\u0964\u0965\u06d4\u3002\uff01" + QUESTION_MARKS
#: Marks that end a clause inside a sentence.
CLAUSE_MARKS = ",;:—\u060c"
