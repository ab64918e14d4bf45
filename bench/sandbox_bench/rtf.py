"""Real-time factors: processing time over audio duration, for Whisper and for Piper.

Whisper transcribes espeak-ng caller utterances of about 2 s and 5 s (its cost has a floor:
it always encodes a 30 s window, so short clips have the higher factor); Piper synthesizes
the typical replies. One untimed warm-up each, then medians.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from sandbox.audio.resample import Float32, resample
from sandbox.audio.stt import SAMPLE_RATE
from sandbox.caller.espeak_voice import speak
from sandbox_bench.figures import Progress, median
from sandbox_bench.models import Models
from sandbox_bench.texts import BOT_REPLIES, STT_UTTERANCES


@dataclass(frozen=True)
class RtfFigures:
    """Medians; ``stt_ms`` maps each utterance's length (s, rounded) to Whisper's time."""

    stt_rtf: float | None
    tts_rtf: float | None
    stt_ms: dict[str, float | None]


def measure_rtf(models: Models, runs: int, progress: Progress) -> RtfFigures:
    """Whisper ``runs`` times on each utterance, Piper on ``runs`` replies."""
    factors: list[float] = []
    stt_ms: dict[str, float | None] = {}
    for text in STT_UTTERANCES:
        raw, rate = speak(text)
        pcm = resample(raw, rate, SAMPLE_RATE)
        seconds = len(pcm) / SAMPLE_RATE
        took = _stt_seconds(models, pcm, runs)
        factors += [t / seconds for t in took]
        stt_ms[f"{seconds:.1f}s"] = median([t * 1000 for t in took], 0)
        progress(f"  Whisper on {seconds:.1f} s of speech: {median(took, 3)} s")
    synthesizer = models.synthesizer
    list(synthesizer.synthesize(BOT_REPLIES[0]))  # warm-up
    tts: list[float] = []
    for index in range(runs):
        reply = BOT_REPLIES[index % len(BOT_REPLIES)]
        started = time.perf_counter()
        clips = list(synthesizer.synthesize(reply))
        tts.append((time.perf_counter() - started) / sum(c.duration for c in clips))
    progress(f"  Piper real-time factor {median(tts, 3)}")
    return RtfFigures(median(factors, 3), median(tts, 3), stt_ms)


def _stt_seconds(models: Models, pcm: Float32, runs: int) -> list[float]:
    """Whisper's time on ``pcm``, ``runs`` times after an untimed warm-up."""
    models.transcriber.transcribe(pcm)
    took = []
    for _ in range(runs):
        started = time.perf_counter()
        models.transcriber.transcribe(pcm)
        took.append(time.perf_counter() - started)
    return took
