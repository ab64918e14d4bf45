"""The endpointing steps of a real-audio call, as the listener decides them on its way to
closing a turn: typed values it hands over (``sandbox.audio.listener``), which the host
stores as the session's events (``sandbox.host.audio_call``; each kind is its type's name
in snake case, ``sandbox.record.stored_events``). Beside the core, as the listener's events
are, so neither the host nor the store imports the audio layer for them.
"""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.call.caller_events import TranscriptMend, TurnClose


@dataclass(frozen=True)
class VoicePaused:
    """The caller's voice paused; the silence began at ``speech_end``."""

    speech_end: int


@dataclass(frozen=True)
class Fall:
    """The pitch's fall at the pause, in semitones (None: not measured)."""

    semitones: float | None


@dataclass(frozen=True)
class Rise:
    """The pitch's rise at the pause, in semitones (None: not measured)."""

    semitones: float | None


@dataclass(frozen=True)
class VoiceResumed:
    """The caller's voice went on after a pause."""


@dataclass(frozen=True)
class TurnClosed:
    """The endpointer closed the turn, for ``reason``; the silence began at ``speech_end``."""

    reason: TurnClose
    speech_end: int


@dataclass(frozen=True)
class BurstRead:
    """A voice over the bot, transcribed (``quick``: a brief read) as asked at ``asked``."""

    text: str
    quick: bool
    unsure: bool
    asked: int


@dataclass(frozen=True)
class Guess:
    """The transcript of the turn so far at a pause; ``complete``: it reads finished."""

    text: str
    complete: bool


@dataclass(frozen=True)
class TurnModel:
    """The turn model's probability that the turn was finished at the pause."""

    probability: float


@dataclass(frozen=True)
class Mended:
    """Whisper's reading of the turn so far (``first``) held more than its clip could, and
    was mended as ``how`` before it became the guess (:mod:`sandbox.audio.plausible`)."""

    how: TranscriptMend
    first: str


EndpointingStep = (
    VoicePaused | Fall | Rise | VoiceResumed | TurnClosed | BurstRead | Guess | TurnModel | Mended
)
"""What the listener decided along the way to closing a turn."""
