"""Small helpers shared by the measurement families: medians and rounding."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence

#: How a stage tells the user what it is doing (one line on stderr).
Progress = Callable[[str], None]


def median(values: Sequence[float], digits: int = 1) -> float | None:
    """The median, rounded; None when nothing was measured."""
    if not values:
        return None
    return round(float(statistics.median(values)), digits)


def fmt_ms(value: float | None) -> str:
    """A duration for a progress line or the table."""
    return "—" if value is None else f"{value:.0f} ms"
