"""The core's record of its units: what it decided about each, as it decided it.

The core is the one interpreter of the wire. Besides what it asks of the world (frames, text
to speak, cuts), it returns these records with its effects, and the host stores them with
the session's events as the call runs, so a call killed mid-way keeps them up to its last
moment. Every reader of a stored call (its rebuilt report, the replay's timeline, the page)
folds them (:mod:`sandbox.call.unit_fold`) instead of working fates and heard text out of
the frames again: a new frame arm changes the core, never a reader.

With the core's :class:`~sandbox.call.effects.SpeakText` (the text relayed to the playout)
and the playout's :class:`~sandbox.call.played.WordPlayed` (the words it released) they say
all there is of a unit: when it opened, its text relayed and its text kept unspoken, the
words heard while it played, and its fate with its heard text once sealed.
"""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.call.units import Fate


@dataclass(frozen=True)
class UnitOpened:
    """The core opened unit ``speech_id`` for turn ``turn_id`` (its SpeechStart was taken),
    to be spoken in ``voice`` and ``language``; it is owed one Finalize."""

    speech_id: int
    turn_id: int
    voice: int
    language: int


@dataclass(frozen=True)
class TextKept:
    """Text the brain sent for a unit whose fate was already sealed (or whose bracket it had
    cancelled): kept for the record, never spoken."""

    speech_id: int
    text: str


@dataclass(frozen=True)
class UnitSealed:
    """The core sealed the unit's fate: how its playout ended, and ``heard``, the verbatim
    prefix of its relayed text the caller heard (its Finalize carries it). ``unspoken``: why
    the playout could not speak it, when it could not."""

    speech_id: int
    fate: Fate
    heard: str
    unspoken: str = ""


@dataclass(frozen=True)
class WatermarkRaised:
    """The barge-in watermark rose to ``through_turn``: every turn up to it is dead."""

    through_turn: int


UnitRecord = UnitOpened | TextKept | UnitSealed | WatermarkRaised
"""What the core records of its units, for the stored session."""
