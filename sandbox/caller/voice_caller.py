"""A script's caller with a real voice, injected as capture audio into the call's microphone
(:class:`~sandbox.audio.script_mic.ScriptMic`): lines spoken by espeak-ng, or a saved call's
own caller audio played again. The audio engine decides turns and barge-ins by itself."""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass

import numpy as np

from sandbox.audio.caller_aloud import CallerAloud
from sandbox.audio.script_mic import ScriptMic
from sandbox.audio.sinks import Block
from sandbox.caller.espeak_voice import CALLER_VOICE, speak

#: Longest a single line may take to be spoken before the script moves on.
LINE_TIMEOUT_S = 60.0


async def _into(mic: ScriptMic, samples: Block, rate: int) -> None:
    """Speak ``samples`` into ``mic`` and wait until all of it has been captured."""
    done = mic.speak(samples, rate)
    await asyncio.to_thread(done.wait, LINE_TIMEOUT_S)


@dataclass
class InjectedVoice:
    """Speaks each line's text with espeak-ng in ``voice`` (see
    :func:`~sandbox.caller.espeak_voice.caller_voice`); with ``aloud``, also through the
    speaker."""

    mic: ScriptMic
    aloud: CallerAloud | None = None
    voice: str = CALLER_VOICE

    async def say(self, text: str) -> None:
        """Speak a line and wait until it has all been captured."""
        samples, rate = await asyncio.to_thread(speak, text, voice=self.voice)
        await self._voiced(samples, rate)

    async def resume(self, text: str, pause_ms: int, then: str) -> None:
        """Speak the first part, fall silent for ``pause_ms``, speak the rest: one clip."""
        first, rate = await asyncio.to_thread(speak, text, voice=self.voice)
        rest, _rate = await asyncio.to_thread(speak, then, voice=self.voice)
        gap = np.zeros(rate * pause_ms // 1000, dtype=np.int16)
        await self._voiced(np.concatenate([first, gap, rest]), rate)

    async def _voiced(self, samples: Block, rate: int) -> None:
        if self.aloud is not None:
            self.aloud.play(samples, rate)
        await _into(self.mic, samples, rate)

    async def over_bot(self, text: str, *, barge_in: bool) -> None:
        """Speak over the bot; whether it takes the floor is the engine's call."""
        await self.say(text)


@dataclass
class RecordedVoice:
    """Speaks a saved call's caller audio: the next clip for each line, in order (the
    line's text is what the original call heard; the engine hears the clip afresh)."""

    mic: ScriptMic
    clips: deque[Block]
    rate: int

    async def say(self, text: str) -> None:
        """Play the next clip and wait until it has all been captured."""
        if self.clips:
            await _into(self.mic, self.clips.popleft(), self.rate)

    async def resume(self, text: str, pause_ms: int, then: str) -> None:
        """The next clip holds the whole thought, pause included."""
        await self.say(text)

    async def over_bot(self, text: str, *, barge_in: bool) -> None:
        """Play the next clip over the bot."""
        await self.say(text)
