"""The audio a call uses, as the command line and the app ask for it: which microphone and
speaker, echo cancellation, which recognizer. Apart from the engine, so that choosing them
(parsing options, a simulated call that passes them along) loads no part of the speech stack.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sandbox.line.profile import DEFAULT_LINE, PROFILES, LineProfile

if TYPE_CHECKING:
    from sandbox.audio.voice_engine import VoiceEngine


@dataclass(frozen=True)
class AudioOptions:
    """``mic``: a device (index or name) or a WAV file (read into a :class:`WavMic` given as
    the engine's ``mic_source``); ``speaker``: a device, a WAV file to write, or "none"
    (silent, still paced in real time). None means the default device."""

    mic: str | None = None
    speaker: str | None = None
    aec: bool = True
    stt_model: str | None = None
    #: The phone line between the caller and the call, both ways (``wideband``: none).
    line: LineProfile = field(default_factory=lambda: PROFILES[DEFAULT_LINE])
    #: A voice of your own (``--voice module:Class``), speaking in place of the catalog
    #: voice its ``name`` names.
    voice: VoiceEngine | None = None


def phone_line(profile: LineProfile) -> LineProfile | None:
    """The line a call's options carry for ``profile``: None for no line (wideband)."""
    return profile if profile.is_line else None
