"""Small helpers shared by the measurement families: medians and rounding."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence

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


def targets_json(targets: Mapping[str, tuple[str, float]]) -> dict[str, dict[str, object]]:
    """A mode's targets as its JSON holds them: each key's kind (``bound``) and bound
    (``value``)."""
    return {key: {"bound": kind, "value": bound} for key, (kind, bound) in targets.items()}


def target_lines(
    figures: Mapping[str, object], targets: Mapping[str, tuple[str, float]]
) -> list[str]:
    """One line per target: the figure, the bound, and whether it was met."""
    lines = []
    for key, (bound, limit) in targets.items():
        value = figures[key]
        met = isinstance(value, float | int) and (
            value <= limit if bound == "max" else value >= limit
        )
        sign = "≤" if bound == "max" else "≥"
        lines.append(f"  {key:<24} {value}   target {sign} {limit:g} {'✓' if met else '✗'}")
    return lines
