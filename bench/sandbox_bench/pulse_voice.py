"""A caller script's voice on the bench's virtual devices: espeak-ng into PulseAudio's
virtual microphone."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from sandbox.caller.espeak_voice import speak
from sandbox_bench import pulse


@dataclass
class PulseVoice:
    """A script's caller speaking into PulseAudio's virtual microphone (espeak-ng, then
    ``pacat`` into its feed): the call hears it through its real input device."""

    async def say(self, text: str) -> None:
        """Speak a line and return once it has played into the microphone."""
        samples, rate = await asyncio.to_thread(speak, text)
        await asyncio.to_thread(pulse.speak_into_mic, samples, rate)

    async def resume(self, text: str, pause_ms: int, then: str) -> None:
        """Speak the first part, fall silent for ``pause_ms``, speak the rest."""
        await self.say(text)
        await asyncio.sleep(pause_ms / 1000)
        await self.say(then)

    async def over_bot(self, text: str, *, barge_in: bool) -> None:
        """Speak over the bot; whether it takes the floor is the engine's call."""
        await self.say(text)
