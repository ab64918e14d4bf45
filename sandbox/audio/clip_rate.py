"""A clip at the speaker's sample rate: a voice may speak at any rate, the playout at one."""

from __future__ import annotations

from dataclasses import replace

from sandbox.audio.resample import as_int16, resample
from sandbox.audio.tts import Clip, WordSpan


def at_rate(clip: Clip, rate: int) -> Clip:
    """``clip`` resampled to ``rate``, each word moved to the same instant (itself if the
    rate is its own)."""
    if clip.sample_rate == rate:
        return clip
    samples = as_int16(resample(clip.samples, clip.sample_rate, rate))

    def moved(sample: int) -> int:
        return min(len(samples), round(sample * rate / clip.sample_rate))

    words = tuple(WordSpan(w.text, moved(w.start), moved(w.end)) for w in clip.words)
    return replace(clip, samples=samples, sample_rate=rate, words=words)
