"""The session page's sound: both legs mixed into one Ogg Opus stream, embedded in the page.

One ``<audio>`` element is the page's clock, so the caller and the bot are mixed (each at
half level, so their sum cannot clip) into one mono track exactly as long as the call. Opus
at 16 kHz keeps a ten-minute call to a few megabytes.
"""

from __future__ import annotations

import base64
import io

import numpy as np
import numpy.typing as npt

from sandbox.record.leg_files import leg_path
from sandbox.record.legs import MIC, SPEAKER, STORED_RATE, read_leg


def mixed_legs(session_id: str, duration_ms: int) -> npt.NDArray[np.float32]:
    """Both legs summed at half level, cut or padded to ``duration_ms``."""
    length = duration_ms * STORED_RATE // 1000
    mix = np.zeros(length, dtype=np.float32)
    for leg in (MIC, SPEAKER):
        samples, rate = read_leg(leg_path(session_id, leg))
        assert rate == STORED_RATE  # legs are kept at one rate
        take = min(length, len(samples))
        mix[:take] += samples[:take].astype(np.float32) / 65536  # half of full scale
    return mix


def opus_data_uri(mix: npt.NDArray[np.float32]) -> str:
    """``mix`` (at the legs' rate) as an Ogg Opus ``data:`` URI."""
    import soundfile

    out = io.BytesIO()
    soundfile.write(out, mix, STORED_RATE, format="OGG", subtype="OPUS")
    return "data:audio/ogg;base64," + base64.b64encode(out.getvalue()).decode("ascii")
