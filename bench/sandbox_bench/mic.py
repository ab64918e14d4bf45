"""A scripted microphone that knows, in host milliseconds, where each caller line's voice sat.

:class:`TimedMic` wraps a :class:`~sandbox.audio.script_mic.ScriptMic` (the real injection
path, optionally with the laptop echo path) and notes the host time each capture block was
delivered. A line is padded to whole capture blocks, so it starts at the first block after
:meth:`TimedMic.say` and ends exactly at the end of the block that delivers its last sample;
its voice's first and last samples then map to host time to within the pacing of one block.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import numpy as np

from sandbox.audio.mic import BLOCK_MS, OnBlock
from sandbox.audio.resample import Float32, as_int16, resample
from sandbox.audio.script_mic import ScriptMic
from sandbox.audio.sinks import Block
from sandbox.caller.espeak_voice import CALLER_VOICE, CALLER_WPM, speak

_RATE = ScriptMic.RATE
_BLOCK = _RATE * BLOCK_MS // 1000
#: Where espeak's voice is taken to start and end (the level caller_voice trims at).
_VOICE_LEVEL = 300 / 32768


@dataclass(frozen=True)
class CallerLine:
    """A caller line ready to inject: 16 kHz samples padded to whole capture blocks."""

    text: str
    samples: Block
    voice_start: int  # first sample above the voice level
    voice_end: int  # one past the last

    @classmethod
    def spoken(
        cls, text: str, *, voice: str = CALLER_VOICE, wpm: int = CALLER_WPM, gain: float = 1.0
    ) -> CallerLine:
        """``text`` in an espeak-ng voice, ``gain`` times as loud (call off the event loop:
        a subprocess)."""
        raw, rate = speak(text, voice=voice, wpm=wpm)
        return cls.of_audio(text, resample(raw, rate, _RATE) * gain)

    @classmethod
    def of_audio(cls, text: str, pcm: Float32) -> CallerLine:
        """Any sound (16 kHz float), named ``text``: a noise as much as a voice."""
        loud = np.flatnonzero(np.abs(pcm) > _VOICE_LEVEL)
        start, end = (int(loud[0]), int(loud[-1]) + 1) if len(loud) else (0, 0)
        padded = np.zeros(math.ceil(len(pcm) / _BLOCK) * _BLOCK, dtype=np.float32)
        padded[: len(pcm)] = pcm
        return cls(text, as_int16(padded), start, end)

    @property
    def duration_ms(self) -> int:
        """Length of the padded line (a whole number of capture blocks)."""
        return len(self.samples) * 1000 // _RATE


@dataclass
class Spoken:
    """One injection of a line; the host times are known once it has been delivered."""

    line: CallerLine
    done: threading.Event
    end_mic_ms: int | None = None  # mic time (ms of audio delivered) at the line's end
    voice_start_ms: float | None = None  # host ms
    voice_end_ms: float | None = None  # host ms


class TimedMic:
    """A MicSource: the ScriptMic's blocks, with the host time of each block's delivery,
    which the engine tells :meth:`arrived` (its ``captured`` hook) as it takes the block."""

    def __init__(self, script: ScriptMic) -> None:
        """``script`` delivers the audio."""
        self.script = script
        self._lock = threading.Lock()
        self._delivered_at: dict[int, int] = {}  # mic ms at a block's end -> host ms
        self._pending: list[Spoken] = []

    def start(self, on_block: OnBlock) -> None:
        """Start the scripted microphone."""
        self.script.start(on_block)

    def arrived(self, host_ms: int) -> None:
        """The block just delivered arrived at ``host_ms`` (on the capture thread, before the
        next block: only this thread moves the mic's count)."""
        with self._lock:
            mic_ms = self.script.delivered_ms
            self._delivered_at[mic_ms] = host_ms
            for spoken in self._pending:
                if spoken.end_mic_ms is None and spoken.done.is_set():
                    self._place(spoken, mic_ms)
            self._pending = [s for s in self._pending if s.end_mic_ms is None]

    def stop(self) -> None:
        """Stop the scripted microphone."""
        self.script.stop()

    def say(self, line: CallerLine) -> Spoken:
        """Inject ``line`` now. Its host times are set once all of it has been delivered.

        The previous line must have been delivered: the line then starts on a block boundary.
        """
        with self._lock:  # registered before its last block can be delivered
            if self._pending:
                raise RuntimeError("a caller line is still being delivered")
            spoken = Spoken(line, self.script.speak(line.samples, _RATE))
            self._pending.append(spoken)
        return spoken

    def _place(self, spoken: Spoken, end_mic_ms: int) -> None:
        line = spoken.line
        spoken.end_mic_ms = end_mic_ms
        start_mic = end_mic_ms - line.duration_ms
        spoken.voice_start_ms = self._host_ms(start_mic + line.voice_start * 1000 / _RATE)
        spoken.voice_end_ms = self._host_ms(start_mic + line.voice_end * 1000 / _RATE)

    def _host_ms(self, mic_ms: float) -> float:
        """Host time of a point in the mic's audio: its block's delivery, less what followed."""
        block_end = math.ceil(mic_ms / BLOCK_MS) * BLOCK_MS
        if block_end not in self._delivered_at:  # a line at the very start of the audio
            block_end += BLOCK_MS
        return self._delivered_at[block_end] - (block_end - mic_ms)
