"""Typed mode: no devices. The caller types; replies play on the simulated clock, silently.

The simulated clock implements the same playout port a real playout clock does and reports the
same progress, so heard text, cuts and Finalize behave exactly as with a speaker.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sandbox.call.ports import Listening, Playout
from sandbox.call.settings import Capabilities
from sandbox.call.sim_playout import SimPlayout
from sandbox.host.session import CallHost
from sandbox.ui.audio import Say


def typed_banner(why: str, ms_per_word: int, how: str = "") -> str:
    """The banner's words: why there is no sound, what happens instead (the speaking rate,
    and the option that sets it: a line typed before a reply has played out cuts it), how
    to get audio."""
    text = (
        f"Typed mode, no sound: {why}. Type what the caller says below; the bot's replies "
        f"play on a simulated clock at {ms_per_word} ms a word (sandbox run --ms-per-word MS "
        "changes it), so heard text and cuts are real."
    )
    return f"{text} {how}" if how else text


@dataclass
class TypedAudio:
    """The audio frontend without devices: a simulated playout clock and no microphone."""

    ms_per_word: int
    banner: str
    _playout: SimPlayout = field(init=False)

    def __post_init__(self) -> None:
        self._playout = SimPlayout(ms_per_word=self.ms_per_word)

    @property
    def real(self) -> bool:
        """Never: there is no microphone or speaker."""
        return False

    @property
    def playout(self) -> Playout:
        """The simulated clock."""
        return self._playout

    @property
    def listening(self) -> Listening | None:
        """No recognizer: typed turns are committed as typed."""
        return None

    @property
    def muted(self) -> bool:
        """There is no microphone, so nothing is muted."""
        return False

    def set_muted(self, muted: bool) -> str | None:
        """Refused in words: there is no microphone to mute."""
        return "typed mode has no microphone to mute"

    def capabilities(self) -> Capabilities | None:
        """The voice catalog's: typed mode synthesizes nothing, so any catalogued voice will do."""
        return None

    def mic_level(self) -> float | None:
        """No microphone, no level."""
        return None

    async def prepare(self, progress: Callable[[str], None]) -> None:
        """Nothing to load."""

    async def start(self, host: CallHost, lost: Say) -> None:
        """Typed turns come from the app itself; nothing to feed, no device to lose."""

    async def close(self) -> None:
        """Nothing to release."""
