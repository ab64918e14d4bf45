"""What a playout clock reports back to the core, simulated or real."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WordPlayed:
    """One word of a unit reached the speaker: it counts as heard. ``index`` is its place in
    the unit's played words and ``sample`` the output sample its audio starts at, where the
    playout knows them (the simulated clock has no samples)."""

    speech_id: int
    word: str
    index: int | None = None
    sample: int | None = None


@dataclass(frozen=True)
class UnitPlayed:
    """All of a closed unit's audio has reached the speaker."""

    speech_id: int


@dataclass(frozen=True)
class UnitUnspoken:
    """The playout could not speak a unit (its voice would not load): nothing more of it
    will be heard. ``reason`` says why, in words."""

    speech_id: int
    reason: str


@dataclass(frozen=True)
class ClauseUnsaid:
    """The playout could not say a clause of a unit: neither it nor the rest of the unit
    will be heard, while what played before it stays heard. ``text`` is the start of the
    unsaid clause as the brain wrote it; ``reason`` says why, in words."""

    speech_id: int
    text: str
    reason: str


@dataclass(frozen=True)
class AudioMark:
    """A moment of a unit's audio on its way out, for its turn's latency waterfall:
    ``stage`` is one of :data:`~sandbox.call.waterfall.PLAYOUT_STAGES` and ``t_ms`` when it
    happened on the call's clock (the playout's threads see it before the host drains it)."""

    speech_id: int
    stage: str
    t_ms: int


Played = WordPlayed | UnitPlayed | UnitUnspoken | ClauseUnsaid | AudioMark
