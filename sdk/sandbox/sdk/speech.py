"""The only things a speaking callback may yield: the brackets and text of one speech unit."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(eq=False)
class SpeechStart:
    """Open a unit of speech on the turn being answered.

    The SDK mints the unit's ``speech_id`` when it takes this object and writes it
    back here, so ``start.speech_id`` names the unit to ``session.cancel_speech``.
    It is 0 until then (the wire never uses 0).
    """

    speech_id: int = field(default=0, init=False)


@dataclass(frozen=True)
class SpeechChunk:
    """Text to speak inside the open unit; stream pieces as they are produced."""

    text: str


#: Short name for :class:`SpeechChunk`, as the heard-truth examples spell it.
Chunk = SpeechChunk


@dataclass(frozen=True)
class SpeechEnd:
    """Close the open unit."""


#: What a speaking callback yields.
Speech = SpeechStart | SpeechChunk | SpeechEnd
