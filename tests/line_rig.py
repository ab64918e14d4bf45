"""What a phone line leaves in audio, measured alike at the codec (tests/test_line.py) and at
PulseAudio's virtual speaker (tests/test_line_calls.py)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from sandbox.line.profile import FRAME_MS

#: Quiet: under 1 % of full scale.
QUIET = 328
#: What the resamplers' filters soften of a lost packet's silence on a line with no
#: concealment (G.711), at most.
SMEAR_MS = 10


def unconcealed_silence_ms(packets: int) -> int:
    """The least silence a burst of ``packets`` lost leaves on a line with no concealment."""
    return packets * FRAME_MS - SMEAR_MS


def longest_silence_ms(audio: npt.NDArray[np.int16], rate: int, quiet: int = QUIET) -> float:
    """The longest run of 5 ms windows whose samples all stay under ``quiet`` (1 % of full
    scale unless told)."""
    window = rate // 200
    audio = audio[: len(audio) // window * window]
    silent = np.abs(audio.reshape(-1, window)).max(axis=1) < quiet
    longest = run = 0
    for q in silent:
        run = run + 1 if q else 0
        longest = max(longest, run)
    return longest * 1000 * window / rate
