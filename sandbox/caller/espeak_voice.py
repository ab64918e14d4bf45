"""A synthetic caller: lines of a script spoken by espeak-ng, a voice unlike the bot's Piper.

Used where a script, a test or a benchmark needs a caller who really speaks: the audio goes
through the whole listening path (echo canceller, VAD, endpointing, Whisper). espeak-ng is a
system package (Debian: espeak-ng), never downloaded at run time.
"""

from __future__ import annotations

import io
import shutil
import subprocess

import numpy as np
import soundfile

from sandbox.audio.sinks import Block
from sandbox.errors import UserError

#: The espeak-ng voice and rate Whisper tiny.en transcribes most reliably among those tried.
CALLER_VOICE = "en-us+m3"
CALLER_WPM = 160


def speak(text: str, *, voice: str = CALLER_VOICE, wpm: int = CALLER_WPM) -> tuple[Block, int]:
    """``text`` spoken by espeak-ng: int16 mono samples (espeak's padding trimmed), rate."""
    if shutil.which("espeak-ng") is None:
        raise UserError(
            "a scripted caller with real audio needs espeak-ng (Debian: sudo apt install "
            "espeak-ng); or use --audio sim"
        )
    result = subprocess.run(
        ["espeak-ng", "-v", voice, "-s", str(wpm), "--stdout", text],
        capture_output=True,
        check=False,
    )
    if result.returncode != 0:
        raise UserError(f"espeak-ng failed: {result.stderr.decode(errors='replace').strip()}")
    # espeak streams to stdout with a placeholder length: libsndfile reads what is there.
    samples, rate = soundfile.read(io.BytesIO(result.stdout), dtype="int16")
    loud = np.flatnonzero(np.abs(samples) > 300)
    trimmed = samples[loud[0] : loud[-1] + 1] if len(loud) else samples
    return trimmed.copy(), rate
