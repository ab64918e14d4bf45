"""TurnStep: one piece of work a brain did for a turn, for the call record."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from sandbox.wire import pb

_UINT32_MAX = 2**32 - 1
_UINT64_MAX = 2**64 - 1


@dataclass(frozen=True)
class TurnStep:
    """A model request, a tool, a query: facts about the work, never its content.

    ``kind`` is ``"model"``, ``"tool"``, ``"database"``, ``"http"``, ``"mcp"`` or the
    brain's own word; ``provider`` is whoever's meter ran (empty for the brain's own
    work); times are milliseconds after the turn's stimulus arrived; ``counts`` holds
    only what was measured (absent is "not reported", 0 is a zero). ``turn_id`` is
    filled in by the SDK with the turn being answered when left None.
    """

    kind: str
    name: str
    provider: str = ""
    start_ms: int = 0
    duration_ms: int = 0
    first_output_ms: int | None = None
    counts: Mapping[str, int] = field(default_factory=dict)
    turn_id: int | None = None

    def to_pb(self, turn_id: int) -> pb.TurnStep:
        """The wire message for this step on ``turn_id``; ValueError names a bad field."""
        for name in ("start_ms", "duration_ms", "first_output_ms"):
            _check(f"TurnStep.{name}", getattr(self, name), _UINT32_MAX)
        for key, count in self.counts.items():
            _check(f"TurnStep.counts[{key!r}]", count, _UINT64_MAX)
        msg = pb.TurnStep(
            turn_id=turn_id,
            kind=self.kind,
            name=self.name,
            provider=self.provider,
            start_ms=self.start_ms,
            duration_ms=self.duration_ms,
            counts=dict(self.counts),
        )
        if self.first_output_ms is not None:
            msg.first_output_ms = self.first_output_ms
        return msg


def _check(where: str, value: int | None, high: int) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
        raise ValueError(f"{where} must be a whole number from 0 to {high}; got {value!r}")
