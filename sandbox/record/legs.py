"""The two audio legs of a real-audio session, written while the call runs.

Each leg is a mono μ-law WAV at 16 kHz beside the store (``<data dir>/audio/<session id>/``):
the microphone after echo cancellation, and what was released to the speaker — telephone
quality, about 1 MB a minute a leg. Sample 0 is the call's time 0, so the legs line up with
the frames: a leg that starts late, or pauses, is padded with silence to where its block
belongs. Blocks arrive on audio threads and are only queued there; a thread of the leg's
own writes them, and a killed process leaves a file readable to its last write (a quarter
second; see :mod:`sandbox.record.mulaw`).
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt
import soundfile

from sandbox.errors import UserError
from sandbox.private_files import NewFile, private_folder
from sandbox.record import mulaw
from sandbox.record.batches import batches
from sandbox.record.leg_files import leg_path

log = logging.getLogger(__name__)

#: How long a leg gathers blocks before writing: the most a crash can lose.
BATCH_S = 0.25
#: The rate both legs are kept at, whatever the devices ran at.
STORED_RATE = 16_000
MIC = "mic"
SPEAKER = "speaker"


class AudioLeg:
    """One leg being written; see the module doc."""

    def __init__(self, path: Path, sample_rate: int) -> None:
        """``sample_rate``: the rate blocks arrive at (they are kept at STORED_RATE)."""
        private_folder(path.parent)
        # Read at its path after a crash, so never renamed into place: a new file of its
        # own instead (a file or link already there is refused, never written through).
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        self._file = os.fdopen(fd, "r+b")
        mulaw.write_header(self._file, STORED_RATE, 0)
        self._file.flush()  # a call killed before the first batch still leaves a readable leg
        self.path = path
        self.sample_rate = sample_rate
        self.failure: str | None = None
        #: Told once, from the leg's thread, if the leg stops (a full disk).
        self.on_failure: Callable[[str], None] | None = None
        self._written = 0
        self._end: int | None = None  # samples: the call's end, past which nothing is kept
        self._queue: queue.Queue[tuple[npt.NDArray[np.int16], int] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._write, name=f"leg-{path.stem}", daemon=True)
        self._thread.start()

    def add(self, samples: npt.NDArray[np.generic], t_ms: int) -> None:
        """A block whose first sample was at ``t_ms`` on the call's clock (float in -1..1 or
        int16); never blocks. An int16 block is kept as given, so it must not change after:
        playout releases a fresh block each time."""
        if samples.dtype == np.int16:  # the speaker's blocks, on its audio thread: no copy
            pcm: npt.NDArray[np.int16] = samples.astype(np.int16, copy=False).reshape(-1)
        else:
            scaled = np.clip(samples.astype(np.float32), -1.0, 1.0) * 32767
            pcm = scaled.astype(np.int16).reshape(-1)
        self._queue.put((pcm, t_ms))

    def end_at(self, t_ms: int) -> None:
        """The call ended at ``t_ms``: audio the device still delivers after it (until the
        engine stops) is not kept, so the leg is exactly as long as the call."""
        self._end = t_ms * STORED_RATE // 1000

    def close(self) -> None:
        """Write what is queued and close the file."""
        self._queue.put(None)
        self._thread.join()
        self._file.close()

    def _write(self) -> None:
        for batch in batches(self._queue, BATCH_S):
            if self.failure is None:
                self._append(batch)

    def _append(self, batch: list[tuple[npt.NDArray[np.int16], int]]) -> None:
        pieces: list[npt.NDArray[np.int16]] = []
        written = self._written
        for pcm, t_ms in batch:
            kept = (at_rate(pcm, self.sample_rate, STORED_RATE) * 32767).astype(np.int16)
            due = t_ms * STORED_RATE // 1000
            if due > written:  # the leg was silent (or started late): pad to the block's time
                pieces.append(np.zeros(due - written, dtype=np.int16))
                written = due
            pieces.append(kept)
            written += len(kept)
        data = np.concatenate(pieces)
        if self._end is not None:
            data = data[: max(0, self._end - self._written)]
        try:
            self._written = mulaw.append(self._file, self._written, data)
        except OSError as exc:
            self.failure = (
                f"the {self.path.stem} audio stopped recording ({exc.strerror}); "
                "the call goes on, and what was recorded up to now is kept"
            )
            log.error("%s: %s", self.path, self.failure)
            if self.on_failure is not None:
                self.on_failure(self.failure)


def read_leg(path: Path) -> tuple[npt.NDArray[np.int16], int]:
    """A leg's samples and rate; a missing or damaged file is an error in words."""
    try:
        return mulaw.read(path)
    except (OSError, mulaw.WavError) as exc:
        raise UserError(f"the audio leg {path} cannot be read ({exc})") from None


MIX = "mix"
#: The files :func:`export_legs` writes, by name (each ``NAME.wav``).
EXPORTED_LEGS = (MIC, SPEAKER, MIX)


def export_legs(session_id: str, out_dir: Path) -> list[Path]:
    """Copy both legs to ``out_dir`` and write ``mix.wav``: the microphone left, the speaker
    right, at the speaker's rate, on the same clock."""
    legs = {leg: read_leg(leg_path(session_id, leg)) for leg in (MIC, SPEAKER)}
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for leg, (samples, rate) in legs.items():
        written.append(_write_wav(out_dir / f"{leg}.wav", rate, samples.reshape(-1, 1)))
    (mic, mic_rate), (speaker, rate) = legs[MIC], legs[SPEAKER]
    mic_at_rate = (at_rate(mic, mic_rate, rate) * 32767).astype(np.int16)
    both = np.zeros((max(len(mic_at_rate), len(speaker)), 2), dtype=np.int16)
    both[: len(mic_at_rate), 0] = mic_at_rate
    both[: len(speaker), 1] = speaker
    written.append(_write_wav(out_dir / f"{MIX}.wav", rate, both))
    return written


def at_rate(samples: npt.NDArray[np.int16], rate: int, target: int) -> npt.NDArray[np.float32]:
    """A leg's samples as floats in -1..1 at ``target`` samples a second (linear)."""
    floats: npt.NDArray[np.float32] = (samples / 32768).astype(np.float32)
    if rate == target or len(floats) == 0:
        return floats
    positions = np.arange(len(floats) * target // rate) * (rate / target)
    resampled: npt.NDArray[np.float32] = np.interp(
        positions, np.arange(len(floats)), floats
    ).astype(np.float32)
    return resampled


def _write_wav(path: Path, rate: int, frames: npt.NDArray[np.int16]) -> Path:
    with NewFile(path) as out:
        soundfile.write(out, frames, rate, "PCM_16", format="WAV", closefd=False)  # NewFile closes
    return path
