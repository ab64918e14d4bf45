"""A damaged session store in words: the index rows ``sessions list`` leaves out, and what
``sessions repair`` kept, lost and set aside. Ids come through
:func:`~sandbox.record.store.shown_id` (printable, short), the damage through
:func:`~sandbox.record.plain_text.visible`."""

from __future__ import annotations

from collections.abc import Sequence

from sandbox.record.plain_text import visible
from sandbox.record.store import DamagedRow
from sandbox.record.store_repair import Repaired

#: Damaged rows named one by one; the rest are counted.
MAX_NAMED = 10


def damaged_lines(rows: Sequence[DamagedRow]) -> list[str]:
    """Why some sessions are not listed, and what to do."""
    count = len(rows)
    lines = [
        f"{count:,} session{'s' if count != 1 else ''} not listed: "
        f"{'their index rows are' if count != 1 else 'its index row is'} damaged. "
        "`sandbox sessions repair` moves the store aside, keeping every session that reads "
        "in a fresh one"
    ]
    return lines + _named(rows)


def repaired_lines(repaired: Repaired) -> list[str]:
    """What a repair did, or that there was nothing to do."""
    if repaired.aside is None:
        return ["the session store is not damaged: nothing to repair"]
    kept = f"kept {_count(repaired.sessions, 'session')}"
    if repaired.without_report:
        kept += (
            f" ({repaired.without_report:,} without its stored report, which did not read: "
            "rebuilt from its frames when read)"
        )
    lines = [
        f"the session store was damaged ({visible(repaired.damage)})",
        f"  {kept}, {_count(repaired.frames, 'frame')} and {_count(repaired.events, 'event')}",
    ]
    lost = []
    if repaired.stretches_lost:
        lost.append(f"{_count(repaired.stretches_lost, 'damaged stretch', 'es')} of rows")
    if repaired.rows_lost:
        lost.append(
            f"{_count(repaired.rows_lost, 'frame or event', '', 'frames or events')} that did "
            "not read, held values not of their kinds, or belong to a session whose index row "
            "was lost"
        )
    if lost:
        lines.append(f"  lost: {'; '.join(lost)}")
    if repaired.set_aside:
        lines.append(
            f"  set aside: {_count(len(repaired.set_aside), 'session')} whose index row is "
            "damaged (in the damaged store only)"
        )
        lines += _named(repaired.set_aside)
    lines.append(
        f"the damaged store is now {repaired.aside}: what could not be read stays in it; "
        "delete it once nothing more is wanted from it"
    )
    return lines


def _named(rows: Sequence[DamagedRow]) -> list[str]:
    named = [f"    {row.shown_id}: {row.why}" for row in rows[:MAX_NAMED]]
    if len(rows) > MAX_NAMED:
        named.append(f"    ... and {len(rows) - MAX_NAMED:,} more")
    return named


def _count(count: int, word: str, plural: str = "s", many: str | None = None) -> str:
    if count == 1:
        return f"1 {word}"
    return f"{count:,} {many or word + plural}"
