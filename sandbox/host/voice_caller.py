"""A script's caller with a real voice: lines spoken by espeak-ng into the call's microphone
(injected as capture audio by :class:`~sandbox.audio.script_mic.ScriptMic`)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from sandbox.audio.caller_voice import speak
from sandbox.audio.script_mic import ScriptMic

#: Longest a single line may take to be spoken before the script moves on.
LINE_TIMEOUT_S = 60.0


@dataclass
class InjectedVoice:
    """Speaks into a ScriptMic. The audio engine decides turns and barge-ins by itself."""

    mic: ScriptMic

    async def say(self, text: str) -> None:
        """Speak a line and wait until it has all been captured."""
        samples, rate = await asyncio.to_thread(speak, text)
        done = self.mic.speak(samples, rate)
        await asyncio.to_thread(done.wait, LINE_TIMEOUT_S)

    async def over_bot(self, text: str, *, barge_in: bool) -> None:
        """Speak over the bot; whether it takes the floor is the engine's call."""
        await self.say(text)
