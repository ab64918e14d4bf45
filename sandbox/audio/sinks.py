"""Where released audio goes: a sound card, a WAV file, memory, or nowhere.

Two kinds, told apart by their methods:

- An :class:`AudioSink` (``write``) has no clock: the playout clock paces it, releasing
  one block every block period of its own clock and writing it. WAV file, memory and
  none are such sinks; "none" is silent but still paced, so words are heard on time.
- A :class:`ClockedSink` (``start``) has a clock of its own, a sound card: it pulls each
  block from its audio thread when the hardware wants one, so playout follows the
  device's clock and never drifts from it or underruns it.

All audio is int16 mono at the sink's sample rate, in 1-D arrays (a :data:`Block`).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import soundfile
from numpy.typing import NDArray

from sandbox.audio.devices import require_sounddevice
from sandbox.errors import UserError
from sandbox.private_files import NewFile

log = logging.getLogger(__name__)

Block = NDArray[np.int16]
#: Pulls the next ``frames`` samples of output; returns exactly that many.
Pull = Callable[[int], Block]

#: Output latency asked of PortAudio, in seconds: audio handed over keeps playing this long
#: after a cut, and a reply's first word reaches the caller this much later. Through
#: PulseAudio's ALSA plugin 0.05 s is granted as 40 ms (0.1 s was 120 ms, 80 ms more on
#: every reply and every cut). Measured, it runs dry only where it plays silence anyway: in
#: the caller's turn (Whisper holding both cores) or as a reply's first word goes out.
DEVICE_LATENCY = 0.05
#: How long a Python thread may hold the interpreter before another waiting one gets it
#: (Python's default is 5 ms): the device's callback needs it within its 20 ms block.
#: Measured: underruns in a benchmark call fell from 14-17 to 4-6.
SWITCH_INTERVAL_S = 0.001


@runtime_checkable
class AudioSink(Protocol):
    """A sink without a clock: the playout clock writes each block as it releases it."""

    @property
    def sample_rate(self) -> int:
        """Samples per second."""
        ...

    def write(self, block: Block) -> None:
        """Take one released block; must not block for long."""
        ...

    def close(self) -> None:
        """No more blocks; flush and release resources."""
        ...


@runtime_checkable
class ClockedSink(Protocol):
    """A sink with its own clock: it pulls blocks from its audio thread once started."""

    @property
    def sample_rate(self) -> int:
        """Samples per second."""
        ...

    def start(self, pull: Pull, block_frames: int) -> None:
        """Begin pulling ``block_frames`` at a time from ``pull``."""
        ...

    def close(self) -> None:
        """Stop pulling and release the device."""
        ...


class MemorySink:
    """Keeps every block, for tests and for checking what was played."""

    def __init__(self, sample_rate: int) -> None:
        """An empty recording at ``sample_rate``."""
        self._rate = sample_rate
        self.blocks: list[Block] = []

    @property
    def sample_rate(self) -> int:
        """Samples per second."""
        return self._rate

    def write(self, block: Block) -> None:
        """Keep a copy of the block."""
        self.blocks.append(block.copy())

    def close(self) -> None:
        """Nothing to release."""

    def samples(self) -> Block:
        """Everything written so far, as one array."""
        return np.concatenate(self.blocks) if self.blocks else np.zeros(0, np.int16)


class NullSink:
    """Plays nothing, at the pace of real time: a session without a speaker."""

    def __init__(self, sample_rate: int) -> None:
        """A silent sink at ``sample_rate``."""
        self._rate = sample_rate

    @property
    def sample_rate(self) -> int:
        """Samples per second."""
        return self._rate

    def write(self, block: Block) -> None:
        """Drop the block."""

    def close(self) -> None:
        """Nothing to release."""


class WavSink:
    """Writes what the speaker would have played, silence included, to a WAV file."""

    def __init__(self, path: Path, sample_rate: int) -> None:
        """Create ``path`` as 16-bit mono at ``sample_rate``: written beside it, it takes
        its place (a file or a link there, replaced, never written through) on close."""
        self._rate = sample_rate
        try:
            self._new = NewFile(path)
        except OSError as exc:
            raise UserError(f"cannot write audio to {path}: {exc.strerror or exc}") from None
        # Closed by close(); the file under it is NewFile's to close when it publishes.
        self._file = soundfile.SoundFile(
            self._new.file, "w", sample_rate, 1, "PCM_16", format="WAV", closefd=False
        )

    @property
    def sample_rate(self) -> int:
        """Samples per second."""
        return self._rate

    def write(self, block: Block) -> None:
        """Append the block."""
        # The raw buffer: half the cost of write()'s checks, a block every 20 ms.
        self._file.buffer_write(np.ascontiguousarray(block, dtype=np.int16), dtype="int16")

    def close(self) -> None:
        """Finish the file's header and put the file in its place."""
        self._file.close()
        self._new.publish()


class DeviceSink:
    """A PortAudio output device (its own ``OutputStream``, never a duplex stream)."""

    def __init__(
        self, device: int | None, sample_rate: int, *, latency: float = DEVICE_LATENCY
    ) -> None:
        """``device`` is a PortAudio index (see :mod:`sandbox.audio.devices`), None = default."""
        self._device = device
        self._rate = sample_rate
        self._latency = latency
        self._stream: Any = None
        #: How many times the device ran dry (the audio thread was late).
        self.underflows = 0
        #: From the block being pulled to its first sample at the DAC, as PortAudio timed
        #: the current callback; None until it reports a time (some hosts report none).
        self.output_delay_s: float | None = None

    @property
    def sample_rate(self) -> int:
        """Samples per second."""
        return self._rate

    def start(self, pull: Pull, block_frames: int) -> None:
        """Open the device and let its audio thread pull blocks."""
        sd = require_sounddevice()
        sys.setswitchinterval(SWITCH_INTERVAL_S)

        def callback(outdata: Any, frames: int, times: Any, status: Any) -> None:
            if status.output_underflow:
                self.underflows += 1
            dac, current = times.outputBufferDacTime, times.currentTime
            self.output_delay_s = dac - current if dac >= current > 0 else None
            outdata[:, 0] = pull(frames)

        try:
            self._stream = sd.OutputStream(
                samplerate=self._rate,
                channels=1,
                dtype="int16",
                blocksize=block_frames,
                device=self._device,
                latency=self._latency,
                callback=callback,
            )
            self._stream.start()
        except sd.PortAudioError as exc:
            name = "the default output" if self._device is None else f"output {self._device}"
            raise UserError(
                f"cannot play through {name}: {exc}. `sandbox devices` lists the outputs."
            ) from None

    def close(self) -> None:
        """Stop the stream (what it already holds plays out) and release the device."""
        if self._stream is not None:
            self._stream.stop()
            self._stream.close()
            self._stream = None
        if self.underflows:
            log.warning("the speaker ran dry %d times (the audio thread was late)", self.underflows)
