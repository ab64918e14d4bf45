"""How many words a recognizer got wrong: the word-level edit distance between what was said
and what it wrote (substitutions, insertions and deletions), both read as the audit reads
text (:func:`~sandbox.judges.heard_truth.audit_words`)."""

from __future__ import annotations

from collections.abc import Sequence

from sandbox.judges.heard_truth import audit_words


def edit_distance(reference: Sequence[str], written: Sequence[str]) -> int:
    """Word-level edit distance between two word lists."""
    row = list(range(len(written) + 1))
    for i, said in enumerate(reference, 1):
        previous, row[0] = row[0], i
        for j, word in enumerate(written, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (said != word))
    return row[-1]


def word_error_rate(pairs: Sequence[tuple[str, str | None]]) -> float | None:
    """The word error rate over ``pairs`` of (what was said, what was written; None: nothing
    reached the recognizer's reader): errors over the words said; None without words."""
    said = sum(len(audit_words(reference)) for reference, _ in pairs)
    if not said:
        return None
    errors = sum(
        edit_distance(audit_words(reference), audit_words(written or ""))
        for reference, written in pairs
    )
    return round(errors / said, 3)
