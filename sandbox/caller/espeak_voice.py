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

from sandbox.audio.espeak_tts import espeak_language
from sandbox.audio.sinks import Block
from sandbox.errors import UserError
from sandbox.wire import pb

#: The espeak-ng voice and rate Whisper tiny.en transcribes most reliably among those tried.
CALLER_VOICE = "en-us+m3"
CALLER_WPM = 160
#: The caller's variant in every language: a voice unlike the bot's espeak voices (the
#: language's own, and its f2).
CALLER_VARIANT = "m3"


def caller_voice(language: int | None) -> str:
    """The espeak-ng voice a scripted caller speaks ``language`` in (None: English)."""
    if language is None or language == pb.LANGUAGE_EN:
        return CALLER_VOICE
    return f"{espeak_language(language)}+{CALLER_VARIANT}"


def speak(text: str, *, voice: str = CALLER_VOICE, wpm: int = CALLER_WPM) -> tuple[Block, int]:
    """``text`` spoken by espeak-ng: int16 mono samples (espeak's padding trimmed), rate."""
    if shutil.which("espeak-ng") is None:
        raise UserError(
            "a scripted caller with real audio needs espeak-ng (Debian: sudo apt install "
            "espeak-ng); or use --audio sim"
        )
    # The line goes in on stdin: on the command line, a line starting "-" is an option.
    result = subprocess.run(
        ["espeak-ng", "-v", voice, "-s", str(wpm), "--stdout", "--stdin"],
        input=text.encode(),
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
