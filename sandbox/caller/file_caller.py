"""A WAV file as the caller (``sandbox run --mic caller.wav``): it speaks once the greeting
has played (or at a fixed delay), and the call ends once the file has been heard out and
answered, as a caller who has said everything hangs up."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from sandbox.audio.engine import AudioEngine
from sandbox.audio.mic import WavMic
from sandbox.caller.script import Script
from sandbox.caller.script_runner import ScriptRunner
from sandbox.host.session import CallHost

#: How often the file's end, and the listener's hearing of it, are looked at.
_POLL_S = 0.05
#: Why the call ended, when the file did: the caller's side ran out, not a person hanging up.
FILE_ENDED = "the caller's audio file ended"


@dataclass(frozen=True)
class FileCaller:
    """``delay_ms``: start the file this long after the call starts (None: once the bot's
    greeting has played out). ``end_at_eof``: hang up once the file's last turn is answered."""

    mic: WavMic
    delay_ms: int | None = None
    end_at_eof: bool = True

    def start(self, host: CallHost, engine: AudioEngine) -> asyncio.Task[None]:
        """Play the file into ``host``'s call, whose engine has ``mic`` as its microphone.

        Call it before ``host.run()``, so the greeting's playing out is seen."""
        # A script with no steps: its runner's waits are a caller's (the bot finished and
        # quiet a moment), which is when a file that is a caller speaks and hangs up.
        runner = ScriptRunner(host, Script(steps=()))
        return asyncio.create_task(self._play(host, engine, runner))

    async def _play(self, host: CallHost, engine: AudioEngine, runner: ScriptRunner) -> None:
        if self.delay_ms is None:
            await runner.settle()
        else:
            await host.sleep(self.delay_ms)
        self.mic.begin()
        while not self.mic.ended.is_set():
            if host.core.ended is not None:
                return
            await asyncio.sleep(_POLL_S)
        if not self.end_at_eof:
            return
        last = engine.blocks_captured
        while not engine.heard_out(last):
            if host.core.ended is not None:
                return
            await asyncio.sleep(_POLL_S)
        await host.caught_up()
        await runner.settle()
        host.hang_up(FILE_ENDED)
