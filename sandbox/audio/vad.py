"""Frame-level voice activity: one webrtcvad decision per 30 ms frame, gated by level.

webrtcvad keeps saying "speech" for a few frames after a voice stops (its own hangover: three
30 ms frames after a sentence, measured), and nothing in its API tells those frames apart. The
endpointer has windows of its own, so that hangover only delays every turn's end by ~90 ms.
Hangover frames sound like the room, not like a voice, so a frame counts as voiced only if it
also stands out of the room's noise: louder than :data:`QUIET_RMS` and than the quietest
frame of the last :data:`NOISE_MEMORY_MS` by :data:`ABOVE_NOISE`. Speech, even its soft
consonants, sits well above that; the room's own frames, and a device's digital silence, do
not.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import numpy.typing as npt
import webrtcvad

#: Frame length every listening component counts in. webrtcvad accepts 10/20/30 ms; 30 ms is
#: the steadiest and makes one endpointer step.
FRAME_MS = 30
#: Frame level (RMS, full scale 1.0) under which nothing is a voice: -60 dBFS, a quiet room
#: through a laptop's microphone, or a headset's noise suppression between words.
QUIET_RMS = 0.001
#: A voiced frame is this many times (6 dB) louder than the room's quietest recent frame.
ABOVE_NOISE = 2.0
#: How far back the room's quietest frame is looked for: longer than any stretch of speech
#: without a gap between words.
NOISE_MEMORY_MS = 3000


class FrameVad:
    """Says whether one frame of int16 mono audio holds speech.

    ``mode`` is webrtcvad's aggressiveness (0-3); 3 rejects the most non-speech and is the one
    measured to hold up in noise, so it is the default. Each instance follows one stream: the
    noise gate learns that stream's room (see the module docstring).
    """

    def __init__(self, mode: int = 3, sample_rate: int = 16000) -> None:
        if mode not in (0, 1, 2, 3):
            raise ValueError(f"VAD mode must be 0..3, got {mode}")
        if sample_rate not in (8000, 16000, 32000, 48000):
            raise ValueError(f"webrtcvad runs at 8/16/32/48 kHz, not {sample_rate} Hz")
        self.sample_rate = sample_rate
        self.frame_samples = sample_rate * FRAME_MS // 1000
        self._vad = webrtcvad.Vad(mode)
        self._levels: deque[float] = deque(maxlen=NOISE_MEMORY_MS // FRAME_MS)
        #: The last frame's level (RMS, full scale 1.0), for other judges of the same frame.
        self.level = 0.0

    def is_speech(self, frame: npt.NDArray[np.int16]) -> bool:
        """True when the frame (exactly :attr:`frame_samples` int16 samples) is voiced."""
        if frame.dtype != np.int16 or frame.shape != (self.frame_samples,):
            raise ValueError(
                f"expected {self.frame_samples} int16 samples ({FRAME_MS} ms), "
                f"got {frame.shape} {frame.dtype}"
            )
        # webrtcvad runs on every frame: its state (noise model, hangover) follows the stream.
        voiced = bool(self._vad.is_speech(frame.tobytes(), self.sample_rate))
        level = self.level = float(np.sqrt(np.mean(np.square(frame.astype(np.float32) / 32768.0))))
        # Until the memory is full its quietest frame may be speech: only the absolute gate.
        room = min(self._levels) if len(self._levels) == self._levels.maxlen else 0.0
        self._levels.append(level)
        return voiced and level >= max(QUIET_RMS, ABOVE_NOISE * room)
