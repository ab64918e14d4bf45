"""The listening path's first-run costs, paid before the call starts.

A loaded Whisper has not yet run: its first decode builds the per-language decoder (the
tokenizer, the suppressed tokens) and CTranslate2 allocates each encoder window's buffers the
first time it meets that width; Smart Turn's onnxruntime session and the pitch track's FFT
pay their first run the same way. Left alone, the caller's first turn pays all of them,
which is why a session's first real-audio turn was slower than the rest. So the engine runs
each once on a synthetic voiced clip while it loads: a short turn (Whisper's 15 s window), a
long one (its 8 s window), a burst over the bot (its brief 3 s read), the turn model and the
pitch track.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from sandbox.audio.prosody import final_fall, final_rise
from sandbox.audio.resample import Float32
from sandbox.audio.stt import SAMPLE_RATE, Transcriber
from sandbox.audio.turn_model import TurnModel

#: The clips a call's turns are read in: a short turn, a long one (2.5 s or more: the 8 s
#: window), and a burst over the bot (read brief).
SHORT_TURN_S, LONG_TURN_S, BURST_S = 1.0, 3.0, 0.6


def voiced_clip(seconds: float) -> Float32:
    """A quiet, voice-like clip: a 140 Hz tone and its harmonics, swelling like syllables,
    so every stage runs its voiced path (the pitch track finds a pitch)."""
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    tone = sum(np.sin(2 * np.pi * 140 * k * t) / k for k in range(1, 6))
    syllables = 0.5 - 0.5 * np.cos(2 * np.pi * 4 * t)
    return np.asarray(0.05 * tone * syllables, dtype=np.float32)


def warm_listening(
    transcriber: Transcriber, turn_model: TurnModel, progress: Callable[[str], None]
) -> float:
    """Run each listening stage once, as a call's first turn would; the seconds it took."""
    progress("warming up the listening path (Whisper, the turn model, the pitch track)")
    started = time.monotonic()
    long_turn = voiced_clip(LONG_TURN_S)
    transcriber.transcribe(voiced_clip(SHORT_TURN_S))
    transcriber.transcribe(long_turn)
    transcriber.transcribe(voiced_clip(BURST_S), brief=True)
    turn_model.probability(long_turn)
    final_fall(long_turn)
    final_rise(long_turn)
    elapsed = time.monotonic() - started
    progress(f"listening path warm in {elapsed:.1f} s")
    return elapsed
