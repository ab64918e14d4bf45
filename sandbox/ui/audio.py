"""What the app needs of an audio engine, so real audio plugs in beside typed mode.

The engine owns devices, VAD, endpointing, STT, TTS and the playout clock. The app only
needs: a :class:`~sandbox.call.ports.Playout` for the host, whether audio is real, a banner
(the devices picked; when audio is not real, why and how to enable it), the microphone level
for the meter, mute, and a moment to load models and to start feeding caller events into the host.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from sandbox.call.ports import Listening, Playout
from sandbox.call.settings import Capabilities
from sandbox.host.session import CallHost

#: Told something in words.
Say = Callable[[str], None]


class AudioFrontend(Protocol):
    """An audio engine as the app sees it: :class:`~sandbox.ui.engine_audio.EngineAudio`
    (real devices) or :class:`~sandbox.ui.typed_audio.TypedAudio` (none)."""

    @property
    def real(self) -> bool:
        """A live microphone and speaker carry the call."""

    @property
    def banner(self) -> str:
        """With sound, the devices picked and what PortAudio lists; without, why and how to
        enable it. Empty: nothing to say."""

    @property
    def playout(self) -> Playout:
        """The playout clock the host drives (the only source of "heard")."""

    @property
    def listening(self) -> Listening | None:
        """The recognizer the host tells of language and patience changes; None: typed."""

    @property
    def muted(self) -> bool:
        """The microphone is muted: nothing the caller says reaches the call."""

    def set_muted(self, muted: bool) -> str | None:
        """Mute or unmute the microphone; words saying why it cannot, or None."""

    def capabilities(self) -> Capabilities | None:
        """What this speech tier serves (voices, languages); None: the voice catalog's."""

    def mic_level(self) -> float | None:
        """The microphone's current level, 0.0 to 1.0, for the meter; None without one."""

    async def prepare(self, progress: Callable[[str], None]) -> None:
        """Open devices and load models, reporting each step in words.

        Call ``progress`` on the event loop's thread (an engine loading in a worker thread
        hops back with ``loop.call_soon_threadsafe``): it posts to the UI.
        """

    async def start(self, host: CallHost, lost: Say) -> None:
        """Start feeding caller events into ``host`` (built with :attr:`listening`).

        ``lost(words)`` is called, on the event loop's thread, when the microphone
        or the speaker went away mid-call (the call goes on without it).
        """

    async def close(self) -> None:
        """Release devices; the call is over."""
