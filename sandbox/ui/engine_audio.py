"""Real audio for the app: the audio engine (devices, VAD, Whisper, Piper, playout clock)
seen through the app's :class:`~sandbox.ui.audio.AudioFrontend`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field

from sandbox.audio.engine import AudioEngine, EngineHooks
from sandbox.call.ports import Listening, Playout
from sandbox.call.settings import Capabilities
from sandbox.caller.file_caller import FileCaller
from sandbox.errors import UserError
from sandbox.host.audio_call import record_legs
from sandbox.host.session import CallHost
from sandbox.record.legs import AudioLeg
from sandbox.record.stored_events import DeviceLost
from sandbox.ui.audio import Say

#: The meter's floor: quieter than this shows as an empty bar.
METER_FLOOR_DB = -60.0
#: What to do when audio cannot start, added to the engine's own words.
TYPED_HINT = "`sandbox run --typed` runs the app without audio"


def level_from_db(db: float) -> float:
    """A microphone level in dBFS as 0.0 (the floor or below) to 1.0 (full scale)."""
    return min(1.0, max(0.0, (db - METER_FLOOR_DB) / -METER_FLOOR_DB))


@dataclass
class EngineAudio:
    """The audio engine as the app sees it: a live microphone and speaker."""

    engine: AudioEngine
    banner: str = ""
    #: A WAV file speaking as the caller (the engine's microphone is its ``mic``).
    caller: FileCaller | None = None
    _caller_task: asyncio.Task[None] | None = field(default=None, init=False)
    _legs: list[AudioLeg] = field(default_factory=list, init=False)
    _host: CallHost | None = field(default=None, init=False)

    @property
    def real(self) -> bool:
        """Always: the engine owns a microphone and a speaker."""
        return True

    @property
    def playout(self) -> Playout:
        """Piper into the playout clock on the chosen speaker (after ``prepare``)."""
        return self.engine.playout()

    @property
    def listening(self) -> Listening | None:
        """The engine: it hears of the call's language and patience."""
        return self.engine

    @property
    def muted(self) -> bool:
        """The microphone feeds silence."""
        return self.engine.muted

    def set_muted(self, muted: bool) -> str | None:
        """Mute or unmute: a muted microphone feeds silence, so nothing reaches the call."""
        self.engine.muted = muted
        return None

    def capabilities(self) -> Capabilities | None:
        """The languages the loaded Whisper model hears and the catalog's voices speak."""
        return self.engine.capabilities()

    def mic_level(self) -> float | None:
        """The last captured block's level, for the meter; None once the microphone is gone."""
        if self.engine.mic_lost:
            return None
        return level_from_db(self.engine.mic_level_db)

    async def prepare(self, progress: Callable[[str], None]) -> None:
        """Load and warm Whisper and the default voice on a worker thread."""
        loop = asyncio.get_running_loop()

        def say(words: str) -> None:
            loop.call_soon_threadsafe(progress, words)

        try:
            await asyncio.to_thread(self.engine.load, say)
        except UserError as exc:
            raise UserError(f"{exc} ({TYPED_HINT})") from None

    async def start(self, host: CallHost, lost: Say) -> None:
        """Start the microphone and the speaker; say when a device goes away, in the app and
        in the session."""
        loop = asyncio.get_running_loop()

        def went_away(words: str) -> None:  # on the engine's watcher thread
            loop.call_soon_threadsafe(lost, words)
            host.recorder.event(host.now(), DeviceLost(words))

        self._host = host
        self._legs, hooks = record_legs(self.engine, host)
        try:
            self.engine.start(host, hooks + EngineHooks(lost=(went_away,)))
        except UserError as exc:
            raise UserError(f"{exc} ({TYPED_HINT})") from None
        if self.caller is not None:
            self._caller_task = self.caller.start(host, self.engine)

    async def close(self) -> None:
        """Stop the file caller, the microphone, the listener and the speaker; close the
        recorded legs."""
        if self._caller_task is not None:
            self._caller_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._caller_task
        if self._host is not None:
            for leg in self._legs:
                leg.end_at(self._host.now())
        await asyncio.to_thread(self.engine.stop)
        for leg in self._legs:
            await asyncio.to_thread(leg.close)
