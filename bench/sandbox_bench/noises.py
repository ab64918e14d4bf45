"""Sounds a caller's room makes over the bot: a cough and a knock at a door, synthesized.

Not speech, so they should pause the bot at most and never take the floor. Deterministic
(seeded), at the microphone's 16 kHz.
"""

from __future__ import annotations

import numpy as np

from sandbox.audio.resample import Float32

RATE = 16000


def _band_noise(rng: np.random.Generator, n: int, low: float, high: float) -> Float32:
    spectrum = np.fft.rfft(rng.standard_normal(n))
    freqs = np.fft.rfftfreq(n, 1 / RATE)
    spectrum[(freqs < low) | (freqs > high)] = 0
    noise = np.fft.irfft(spectrum, n)
    out: Float32 = (noise / np.max(np.abs(noise))).astype(np.float32)
    return out


def _envelope(n: int, attack_s: float, decay_s: float) -> Float32:
    t = np.arange(n) / RATE
    return (np.minimum(1.0, t / attack_s) * np.exp(-t / decay_s)).astype(np.float32)


def cough(seed: int = 1) -> Float32:
    """Two bursts of breathy noise, ~0.45 s in all."""
    rng = np.random.default_rng(seed)
    burst = RATE * 180 // 1000
    one = _band_noise(rng, burst, 250, 3500) * _envelope(burst, 0.008, 0.05) * 0.5
    two = _band_noise(rng, burst, 250, 3500) * _envelope(burst, 0.008, 0.04) * 0.35
    gap = np.zeros(RATE * 90 // 1000, np.float32)
    return np.concatenate([one, gap, two]).astype(np.float32)


def knock(seed: int = 2) -> Float32:
    """Three knocks on a wooden door, 0.18 s apart."""
    rng = np.random.default_rng(seed)
    n = RATE * 180 // 1000
    t = np.arange(n) / RATE
    hit = np.sin(2 * np.pi * 190 * t) + 0.6 * np.sin(2 * np.pi * 420 * t)
    hit = hit * np.exp(-t / 0.018) + _band_noise(rng, n, 500, 4000) * np.exp(-t / 0.004)
    hit = (hit / np.max(np.abs(hit)) * 0.6).astype(np.float32)
    return np.concatenate([hit, hit * 0.9, hit * 0.8]).astype(np.float32)
