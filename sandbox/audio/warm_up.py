"""The listening path's first-run costs, paid before the call starts.

A loaded Whisper has not yet run: its first decode builds the per-language decoder (the
tokenizer, the suppressed tokens) and CTranslate2 runs for the first time, and the pitch
track's first call pays numpy's first FFT of its size. Measured in fresh processes (four, on
the 2-core machine at load 10-11, 2026-12-07): the first decode of a short turn took 549-889
ms against 407-550 for the next, the first pitch track of a 3 s turn 47-209 ms against
20-106; a later window width (8 s, a brief read's 3 s) and Smart Turn's first run cost no more
than the runs after them. Left alone, the caller's first turn pays both, so the engine pays
them while it loads, on a synthetic voiced clip.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from sandbox.audio.prosody import final_fall, final_rise
from sandbox.audio.recognizer import Recognizer
from sandbox.audio.resample import Float32
from sandbox.audio.stt import SAMPLE_RATE

#: A short turn (Whisper's first decode), and a turn long enough for the pitch track's
#: whole context.
SHORT_TURN_S, LONG_TURN_S = 1.0, 3.0


def voiced_clip(seconds: float) -> Float32:
    """A quiet, voice-like clip: a 140 Hz tone and its harmonics, swelling like syllables,
    so every stage runs its voiced path (the pitch track finds a pitch)."""
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    tone = sum(np.sin(2 * np.pi * 140 * k * t) / k for k in range(1, 6))
    syllables = 0.5 - 0.5 * np.cos(2 * np.pi * 4 * t)
    return np.asarray(0.05 * tone * syllables, dtype=np.float32)


def warm_listening(transcriber: Recognizer, progress: Callable[[str], None]) -> float:
    """Run Whisper and the pitch track once, as a call's first turn would; the seconds it
    took."""
    progress("warming up the listening path (Whisper, the pitch track)")
    started = time.monotonic()
    transcriber.transcribe(voiced_clip(SHORT_TURN_S))
    long_turn = voiced_clip(LONG_TURN_S)
    final_fall(long_turn)
    final_rise(long_turn)
    elapsed = time.monotonic() - started
    progress(f"listening path warm in {elapsed:.1f} s")
    return elapsed
