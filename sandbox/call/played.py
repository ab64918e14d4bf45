"""What a playout clock reports back to the core, simulated or real."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WordPlayed:
    """One word of a unit reached the speaker: it counts as heard."""

    speech_id: int
    word: str


@dataclass(frozen=True)
class UnitPlayed:
    """All of a closed unit's audio has reached the speaker."""

    speech_id: int


Played = WordPlayed | UnitPlayed
