"""The turn bookkeeping: the newest turn, the one-way watermark, and which turn is speaking."""

from __future__ import annotations

from contextvars import ContextVar

#: The turn a speaking callback answers, set inside its task (and inherited by tasks it spawns).
_answering: ContextVar[int | None] = ContextVar("sandbox_sdk_answering_turn", default=None)


class Turns:
    """Voqalize mints turns; the SDK only records them and the interruption watermark."""

    def __init__(self) -> None:
        self.latest = 0
        self.watermark = 0

    def mint(self, turn_id: int) -> bool:
        """Record a stimulus's turn; False if it does not move forward (a broken peer)."""
        if turn_id <= self.latest:
            return False
        self.latest = turn_id
        return True

    def interrupt(self, through_turn: int) -> bool:
        """``watermark = max(watermark, through_turn)``; True if it moved."""
        if through_turn <= self.watermark:
            return False
        self.watermark = through_turn
        return True

    def dead(self, turn_id: int) -> bool:
        """At or below the watermark: the caller will not hear it."""
        return turn_id <= self.watermark

    def current(self) -> int:
        """The turn being answered here: the calling turn task's own, else the newest."""
        answering = _answering.get()
        return answering if answering is not None else self.latest

    @staticmethod
    def enter(turn_id: int) -> None:
        """Mark the running task (and tasks it spawns) as answering ``turn_id``."""
        _answering.set(turn_id)
