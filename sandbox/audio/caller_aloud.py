"""A scripted caller heard in the room: their voice mixed into the bot's speaker.

For a demo the caller's lines go two ways at once: into the call's microphone path (a
:class:`~sandbox.audio.script_mic.ScriptMic`, where the runtime hears them) and out of the
same speaker as the bot (where the room hears them). The mix happens after playout, so the
caller's voice is never playout's: it is not a released word, not in the speaker leg of the
recording, and not in the echo canceller's reference.
"""

from __future__ import annotations

import threading

import numpy as np

from sandbox.audio.resample import Float32, as_float32, resample
from sandbox.audio.sinks import AudioSink, Block, ClockedSink, Pull


class CallerAloud:
    """Caller audio waiting to be mixed into the speaker's blocks."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: Float32 = np.zeros(0, dtype=np.float32)
        self._rate: int | None = None

    def play(self, samples: Block, rate: int) -> None:
        """Queue a line to be heard from now on (after whatever is still playing)."""
        if self._rate is None:
            return  # no speaker yet: nothing can be heard
        line = as_float32(resample(as_float32(samples), rate, self._rate))
        with self._lock:
            self._pending = np.concatenate([self._pending, line])

    def wrap(self, sink: AudioSink | ClockedSink) -> AudioSink | ClockedSink:
        """``sink`` with the caller mixed into every block it plays."""
        self._rate = sink.sample_rate
        if isinstance(sink, ClockedSink):
            return _MixedClocked(sink, self)
        return _MixedPush(sink, self)

    def mixed(self, block: Block) -> Block:
        """``block`` with the next stretch of caller audio added (saturating)."""
        with self._lock:
            take = self._pending[: len(block)]
            self._pending = self._pending[len(take) :]
        if not len(take):
            return block
        out = block.astype(np.int32)
        out[: len(take)] += (take * 32767).astype(np.int32)
        return np.clip(out, -32768, 32767).astype(np.int16)


class _MixedClocked:
    """A device that pulls: the caller is added to each block it pulls from playout."""

    def __init__(self, sink: ClockedSink, aloud: CallerAloud) -> None:
        self._sink, self._aloud = sink, aloud

    @property
    def sample_rate(self) -> int:
        """The device's rate."""
        return self._sink.sample_rate

    def start(self, pull: Pull, block_frames: int) -> None:
        """Start the device, pulling through the mix."""
        self._sink.start(lambda frames: self._aloud.mixed(pull(frames)), block_frames)

    def close(self) -> None:
        """Stop the device."""
        self._sink.close()


class _MixedPush:
    """A sink written to (a file, or none): the caller is added to each block written."""

    def __init__(self, sink: AudioSink, aloud: CallerAloud) -> None:
        self._sink, self._aloud = sink, aloud

    @property
    def sample_rate(self) -> int:
        """The sink's rate."""
        return self._sink.sample_rate

    def write(self, block: Block) -> None:
        """Write the block with the caller mixed in."""
        self._sink.write(self._aloud.mixed(block))

    def close(self) -> None:
        """Close the sink."""
        self._sink.close()
