"""A synthetic caller for the listening tests: espeak-ng speech made at test time.

espeak-ng's voice is distinct from the bot's Piper voice (so an echo and a caller are never the
same signal), installed system-wide, and never downloaded. ``en-us+m3`` at 160 wpm is the
variant Whisper tiny.en transcribes most reliably among those tried.
"""

from __future__ import annotations

import re
import shutil
import wave
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from sandbox.audio.resample import Float32, as_float32, as_int16, resample
from sandbox.caller.espeak_voice import CALLER_VOICE, speak
from sandbox.judges.word_errors import edit_distance

RATE = 16000
#: A second espeak voice standing in for the bot in echo tests (Piper is the other half's).
BOT_VOICE = "en-gb"


def espeak(text: str, *, voice: str = CALLER_VOICE, wpm: int = 160) -> Float32:
    """``text`` spoken by espeak-ng as float32 mono 16 kHz, trimmed of espeak's own padding."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed")
    samples, rate = speak(text, voice=voice, wpm=wpm)
    return resample(samples, rate, RATE)


def silence(ms: int) -> Float32:
    """Digital silence."""
    return np.zeros(RATE * ms // 1000, dtype=np.float32)


def noise(ms: int, level: float, seed: int = 0) -> Float32:
    """White noise with standard deviation ``level`` (0.01 is a quiet room, 0.05 a fan)."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(RATE * ms // 1000) * level).astype(np.float32)


def join(*parts: Float32) -> Float32:
    """Concatenate clips."""
    return np.concatenate(parts).astype(np.float32)


def write_wav(path: Path, pcm: Float32, rate: int = RATE) -> Path:
    """Write float32 mono audio as a 16-bit WAV (for tests that play a caller into a device)."""
    with wave.open(str(path), "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(rate)
        writer.writeframes(as_int16(as_float32(pcm)).tobytes())
    return path


def squeezed(recording: NDArray[np.int16], *, longest_ms: int = 100) -> Float32:
    """A 16 kHz speaker recording as float32 for Whisper, each stretch of digital silence in
    it cut to ``longest_ms``. A loaded machine's audio thread lets the device run dry: gaps
    of silence split the reply's words, and Whisper misreads or drops words around them (9
    of 36 heard once). Nothing voiced is cut, so a word skipped or said twice still shows."""
    quiet = np.abs(recording.astype(np.int32)) <= 1
    at = np.arange(len(quiet))
    starts = quiet & ~np.concatenate(([False], quiet[:-1]))
    into_run = at - np.maximum.accumulate(np.where(starts, at, 0))
    kept = recording[~quiet | (into_run < RATE * longest_ms // 1000)]
    return kept.astype(np.float32) / 32768.0


def stretches(recording: NDArray[np.int16], *, gap_ms: int = 400) -> list[Float32]:
    """A 16 kHz speaker recording cut at each stretch of digital silence of ``gap_ms`` or
    more, each voiced stretch as float32 for Whisper. Read whole, a recording of several
    voices with long silences between them lets tiny.en skip a stretch outright (a demo's
    caller question and the bot's reply to it, 8 s of speech, were missing from one read in
    CI); read apart, each stretch is a short clip Whisper reads on its own."""
    quiet = np.abs(recording.astype(np.int32)) <= 1
    voiced = np.flatnonzero(~quiet)
    if len(voiced) == 0:
        return []
    gaps = np.flatnonzero(np.diff(voiced) > RATE * gap_ms // 1000)
    starts = np.concatenate(([voiced[0]], voiced[gaps + 1]))
    ends = np.concatenate((voiced[gaps], [voiced[-1]])) + 1
    return [recording[a:b].astype(np.float32) / 32768.0 for a, b in zip(starts, ends, strict=True)]


#: Whisper writes small numbers as digits or words at will ("7 to 8", "seven to eight").
_NUMBERS = {
    0: "zero", 1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six",
    7: "seven", 8: "eight", 9: "nine", 10: "ten", 11: "eleven", 12: "twelve",
}  # fmt: skip


def words(text: str) -> list[str]:
    """Lowercase words without punctuation: "Two.", "two" and "2" compare equal."""
    found = re.findall(r"[a-z0-9']+", text.lower().replace("-", " "))
    return [_NUMBERS.get(int(w), w) if w.isdigit() else w for w in found]


def word_errors(reference: str, heard: str) -> int:
    """Word-level edit distance (substitutions + insertions + deletions)."""
    return edit_distance(words(reference), words(heard))
