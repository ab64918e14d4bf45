"""Frame-level voice activity: one webrtcvad decision per 30 ms frame."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import webrtcvad

#: Frame length every listening component counts in. webrtcvad accepts 10/20/30 ms; 30 ms is
#: the steadiest and makes one endpointer step.
FRAME_MS = 30


class FrameVad:
    """Says whether one frame of int16 mono audio holds speech.

    ``mode`` is webrtcvad's aggressiveness (0-3); 3 rejects the most non-speech and is the one
    measured to hold up in noise, so it is the default.
    """

    def __init__(self, mode: int = 3, sample_rate: int = 16000) -> None:
        if mode not in (0, 1, 2, 3):
            raise ValueError(f"VAD mode must be 0..3, got {mode}")
        if sample_rate not in (8000, 16000, 32000, 48000):
            raise ValueError(f"webrtcvad runs at 8/16/32/48 kHz, not {sample_rate} Hz")
        self.sample_rate = sample_rate
        self.frame_samples = sample_rate * FRAME_MS // 1000
        self._vad = webrtcvad.Vad(mode)

    def is_speech(self, frame: npt.NDArray[np.int16]) -> bool:
        """True when the frame (exactly :attr:`frame_samples` int16 samples) is voiced."""
        if frame.dtype != np.int16 or frame.shape != (self.frame_samples,):
            raise ValueError(
                f"expected {self.frame_samples} int16 samples ({FRAME_MS} ms), "
                f"got {frame.shape} {frame.dtype}"
            )
        return bool(self._vad.is_speech(frame.tobytes(), self.sample_rate))
