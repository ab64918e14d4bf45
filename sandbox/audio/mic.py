"""Where caller audio comes from: a PortAudio input device, or an audio file played in real
time."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import soundfile

from sandbox.audio.devices import require_sounddevice
from sandbox.audio.resample import as_int16
from sandbox.audio.sinks import Block
from sandbox.errors import UserError

#: Capture block length; the listener reframes to 30 ms for the VAD.
BLOCK_MS = 20
OnBlock = Callable[[Block, int], None]  # (int16 mono block, sample rate)


class MicSource(Protocol):
    """A source of capture blocks, delivered on its own thread."""

    def start(self, on_block: OnBlock) -> None:
        """Begin delivering blocks."""

    def stop(self) -> None:
        """Stop delivering blocks and release the device or file."""


class DeviceMic:
    """A PortAudio input device (its own ``InputStream``, never a duplex stream)."""

    def __init__(self, device: int | None, sample_rate: int | None = None) -> None:
        """``device``: PortAudio index (None = default); rate defaults to the device's own."""
        self._device = device
        self._rate = sample_rate
        self._stream: Any = None

    def start(self, on_block: OnBlock) -> None:
        """Open the device; its audio thread hands each block to ``on_block``."""
        sd = require_sounddevice()
        try:
            info = sd.query_devices(self._device, "input")
            rate = self._rate or int(info["default_samplerate"])

            def callback(indata: Any, _frames: int, _time: Any, _status: Any) -> None:
                on_block(indata[:, 0].copy(), rate)

            self._stream = sd.InputStream(
                samplerate=rate,
                channels=1,
                dtype="int16",
                blocksize=rate * BLOCK_MS // 1000,
                device=self._device,
                callback=callback,
            )
            self._stream.start()
        except (sd.PortAudioError, ValueError) as exc:
            name = "the default input" if self._device is None else f"input {self._device}"
            raise UserError(
                f"cannot listen on {name}: {exc}. `sandbox devices` lists the inputs; "
                "or run without a microphone and type."
            ) from None

    def stop(self) -> None:
        """Close the stream."""
        if self._stream is not None:
            self._stream.stop()
            self._stream.close()
            self._stream = None


def read_caller_audio(path: Path) -> tuple[Block, int]:
    """A caller's audio file as int16 mono samples and their rate: any WAV (PCM, float,
    WAVE_FORMAT_EXTENSIBLE), FLAC or OGG that libsndfile reads, at any rate, its channels
    mixed down. The rate is kept: the listener resamples whatever rate a source gives."""
    try:
        data, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    except (OSError, RuntimeError, TypeError) as exc:  # libsndfile's errors are RuntimeErrors
        raise UserError(f"cannot read {path} as a WAV microphone: {exc}") from None
    return as_int16(data.mean(axis=1)), int(rate)


class WavMic:
    """A WAV file spoken into the call in real time: silence until :meth:`begin`, then the
    file, then silence again (so its last turn can close); ``ended`` is set once the file's
    last block has been delivered."""

    def __init__(self, path: Path, clock: Callable[[], float] = time.monotonic) -> None:
        """Reads the whole file now so a bad file is an error before the call starts."""
        self.samples, self._rate = read_caller_audio(path)
        self.ended = threading.Event()
        self._clock = clock
        self._begun = threading.Event()
        self._halt = threading.Event()
        self._thread: threading.Thread | None = None

    def begin(self) -> None:
        """Start the file at the next block (from any thread)."""
        self._begun.set()

    def start(self, on_block: OnBlock) -> None:
        """Deliver a block every 20 ms in real time, the file's from :meth:`begin` on, until
        stopped. Silence is delivered too, so the listener hears time pass around the file."""
        size = self._rate * BLOCK_MS // 1000
        period = BLOCK_MS / 1000

        def run() -> None:
            origin = self._clock()
            index = at = 0
            while not self._halt.is_set():
                block = self.samples[at : at + size] if self._begun.is_set() else self.samples[:0]
                at += len(block)
                if len(block) < size:
                    block = np.concatenate([block, np.zeros(size - len(block), np.int16)])
                on_block(block, self._rate)
                if self._begun.is_set() and at >= len(self.samples):
                    self.ended.set()
                index += 1
                self._halt.wait(max(0.0, origin + index * period - self._clock()))

        self._thread = threading.Thread(target=run, name="wav-mic", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop delivering."""
        self._halt.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
