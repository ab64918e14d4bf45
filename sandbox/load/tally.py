"""The run's figures so far, added to as each call finishes: what the progress line and the
final table show."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sandbox.load.call_result import CallResult


def percentile(values: Sequence[float], pct: float) -> float | None:
    """The nearest-rank percentile (``pct`` in 0..100) of ``values``; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass
class Tally:
    """Calls completed and failed, latencies, rules broken, errors by code."""

    calls: list[CallResult] = field(default_factory=list)
    first_chunk_ms: list[float] = field(default_factory=list)
    finalize_ms: list[float] = field(default_factory=list)
    rules: Counter[str] = field(default_factory=Counter)  # rule -> calls that broke it
    errors: Counter[str] = field(default_factory=Counter)  # code -> calls that had it
    #: Dead-turn findings not judged: the load generator ran later than the rule's grace.
    unjudged: int = 0

    def add(self, result: CallResult) -> None:
        """One finished call."""
        self.calls.append(result)
        self.first_chunk_ms += result.first_chunk_ms
        self.finalize_ms += result.finalize_ms
        self.rules.update(result.rules)
        self.errors.update(result.errors)
        self.unjudged += result.unjudged

    @property
    def done(self) -> int:
        """Calls finished, whatever their end."""
        return len(self.calls)

    @property
    def failed(self) -> int:
        """Calls that broke a rule or ended in an error."""
        return sum(1 for c in self.calls if c.failed)

    @property
    def completed(self) -> int:
        """Calls that played their script to an end with no error (findings aside)."""
        return sum(1 for c in self.calls if not c.errors)

    @property
    def flagged(self) -> list[CallResult]:
        """Calls with wire-rule findings, in the order they were placed."""
        return sorted((c for c in self.calls if c.findings), key=lambda c: c.index)

    def as_json(self, wall_s: float) -> dict[str, Any]:
        """The run for ``--json``: the summary, then every call."""
        return {
            "calls": self.done,
            "completed": self.completed,
            "failed": self.failed,
            "with_findings": len(self.flagged),
            "unjudged_findings": self.unjudged,
            "rules": dict(self.rules),
            "errors": dict(self.errors),
            "first_chunk_ms": _spread(self.first_chunk_ms),
            "finalize_ms": _spread(self.finalize_ms),
            "wall_s": round(wall_s, 3),
            "calls_per_s": round(self.done / wall_s, 3) if wall_s > 0 else None,
            "turns_per_s": round(len(self.first_chunk_ms) / wall_s, 3) if wall_s > 0 else None,
            "per_call": [c.as_json() for c in sorted(self.calls, key=lambda c: c.index)],
        }


def _spread(values: Sequence[float]) -> dict[str, float | None]:
    return {f"p{p}": percentile(values, p) for p in (50, 95, 99)}
