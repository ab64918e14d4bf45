"""Speech units as the call core tracks them: one bracket, its text, and what was heard."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from sandbox.call.heard import HeardCursor


class Bracket(enum.Enum):
    """Where the brain's bracket for a unit stands."""

    OPEN = "open"  # SpeechStart seen, no SpeechEnd or SpeechCancel yet
    ENDED = "ended"  # closed by SpeechEnd
    CANCELLED = "cancelled"  # closed by the brain's SpeechCancel


class Fate(enum.Enum):
    """How a unit's playout finished; None on a Unit means it is still in play."""

    PLAYED = "played"  # every word reached the output
    BARGED = "barged"  # cut by the caller's barge-in (its turn is at or below the watermark)
    CANCELLED = "cancelled"  # cut by a SpeechCancel (the whole floor)
    DEAD_ON_ARRIVAL = "dead"  # opened for a turn already at or below the watermark
    SILENT = "silent"  # closed with no text: nothing to play, nothing cut
    ABANDONED = "abandoned"  # the call ended before it played


@dataclass
class Unit:
    """One unit of speech: brain-minted id, the turn it answers, and its heard truth."""

    speech_id: int
    turn_id: int
    voice: int
    language: int
    opened_ms: int
    bracket: Bracket = Bracket.OPEN
    fate: Fate | None = None
    cursor: HeardCursor = field(default_factory=HeardCursor)
    finalized: bool = False
    discarded: list[str] = field(default_factory=list)
    first_text_ms: int | None = None
    resolved_ms: int | None = None

    @property
    def generated(self) -> str:
        """Everything relayed for this unit, in order."""
        return self.cursor.text

    @property
    def received(self) -> str:
        """Everything the brain sent for this unit, including text discarded unspoken."""
        return self.cursor.text + "".join(self.discarded)

    @property
    def heard(self) -> str:
        """The delivered prefix of the unit's own text."""
        return self.cursor.heard

    @property
    def resolved(self) -> bool:
        """Its heard text is final; the Finalize can go once older units' have."""
        return self.fate is not None

    @property
    def interrupted(self) -> bool:
        """heard != generated: the comparison the brain makes, made here for display."""
        return self.heard != self.generated

    @property
    def live(self) -> bool:
        """Still taking text and playing."""
        return self.fate is None and self.bracket is not Bracket.CANCELLED
