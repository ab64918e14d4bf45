"""What a call's record did not keep, in words, for the printers (``sandbox call``'s
summary, ``sessions show``): a flood past its sample is counted, not kept, and the reader is
told how much so (the report's ``frames_unkept`` and ``malformed_unkept``)."""

from __future__ import annotations

from msgspec import UNSET

from sandbox.record.plain_text import visible
from sandbox.record.report import Report


def unkept_line(report: Report) -> str | None:
    """``not kept (only counted): 13,250 units, 469,707 request_past_cap, 10,676
    after_end``, or None when the record kept every unit and frame. The kinds are the
    recorder's own names, shown :func:`visible` all the same: a stored report read back is a
    file's text."""
    counted = report.frames_unkept if report.frames_unkept is not UNSET else {}
    counts = {"units": report.units_unkept or 0} if report.units_unkept is not UNSET else {}
    counts |= {str(kind): count for kind, count in counted.items()}
    if report.malformed_unkept is not UNSET and report.malformed_unkept:
        counts["malformed"] = report.malformed_unkept
    shown = [f"{count:,} {visible(kind)}" for kind, count in counts.items() if count]
    if not shown:
        return None
    return f"not kept (only counted): {', '.join(shown)}"
