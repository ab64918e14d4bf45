"""The microphone level meter for the status line."""

from __future__ import annotations

#: Cells of the meter's bar.
METER_WIDTH = 10


def meter(level: float | None, *, real: bool, muted: bool, width: int = METER_WIDTH) -> str:
    """``mic ██████░░░░`` for a level from 0.0 to 1.0; words when there is nothing to show."""
    if not real:
        return "mic: typed mode"
    if muted:
        return "mic: muted"
    if level is None:
        return "mic: —"
    filled = round(min(1.0, max(0.0, level)) * width)
    return "mic " + "█" * filled + "░" * (width - filled)
