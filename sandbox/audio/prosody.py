"""Final lowering: whether a caller's voice fell to the bottom of its range as it stopped.

A speaker ending a statement lets the pitch fall to the low end of their range; a speaker
who stops to think mid-sentence holds it level, or lifts it (a continuation rise). That fall
is among the cues people use to hand the turn over (Gravano and Hirschberg, "Turn-taking
cues in task-oriented dialogue", 2011, name falling final intonation first), and it is one
a synthetic voice renders faithfully: espeak-ng and Piper fall at a sentence's end and not
at a word boundary inside it. Whisper's punctuation cannot see it (it punctuates a paused
caller's "Can somebody call?"), and Smart Turn, trained on human speech, does not read it on
these voices (see :mod:`sandbox.audio.endpointer`).

:func:`final_fall` measures it: the pitch of the voice's last 50 ms against the median pitch
of the turn's last few seconds, in semitones (negative: it fell). Pure numpy, no clock: an
autocorrelation pitch track, 40 ms frames every 10 ms, computed with one FFT per frame batch
(a few milliseconds for 4 s of audio). Where there is too little voicing to say (a single
word, a whisper, a noisy line), it says nothing, and the endpointer waits as it would
without it.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from sandbox.audio.resample import Float32

SAMPLE_RATE = 16_000
FRAME = 640  # 40 ms: two periods of the lowest pitch tracked
HOP = 160  # 10 ms
_FFT = 2048  # >= 2 x FRAME, so the circular autocorrelation is the linear one
LOWEST_HZ, HIGHEST_HZ = 70.0, 400.0
#: How much of the turn's end is read: enough for the speaker's range, little enough to be
#: quick.
CONTEXT_S = 4.0
#: A frame is voiced when its autocorrelation peak reaches this (0..1) and it is no more
#: than 25 dB below the loudest frames.
PERIODICITY = 0.45
LOUDNESS_FLOOR_DB = -25.0
#: Fewer voiced frames than this (0.3 s) and the range is unknown: no verdict.
MIN_VOICED_FRAMES = 30
#: The end's pitch is the mean of this many last voiced frames (50 ms).
END_FRAMES = 5
#: A lag whose peak is this close to the best is taken when shorter: the period, not a
#: multiple of it (autocorrelation's octave error).
OCTAVE_TOLERANCE = 0.9


def pitch_track(pcm16k: Float32) -> npt.NDArray[np.float64]:
    """The pitch of each 10 ms frame in Hz, NaN where the frame is unvoiced or quiet."""
    audio = np.asarray(pcm16k, dtype=np.float64)
    if len(audio) < FRAME:
        return np.zeros(0)
    count = 1 + (len(audio) - FRAME) // HOP
    index = np.arange(FRAME)[None, :] + HOP * np.arange(count)[:, None]
    frames = audio[index]
    frames = frames - frames.mean(axis=1, keepdims=True)
    energy = np.einsum("ij,ij->i", frames, frames)
    spectrum = np.fft.rfft(frames * np.hanning(FRAME), n=_FFT, axis=1)
    auto = np.fft.irfft(np.abs(spectrum) ** 2, n=_FFT, axis=1)[:, :FRAME]
    zero = auto[:, :1]
    with np.errstate(invalid="ignore", divide="ignore"):
        auto = np.where(zero > 0, auto / zero, 0.0)
    # The Hann window tapers the correlation by the overlap: undo it so long lags compete.
    window = np.hanning(FRAME)
    taper = np.correlate(window, window, "full")[FRAME - 1 :]
    auto = auto / np.maximum(taper / taper[0], 1e-3)
    low, high = int(SAMPLE_RATE / HIGHEST_HZ), int(SAMPLE_RATE / LOWEST_HZ)
    search = auto[:, low : high + 1]
    best = search.max(axis=1)
    first = np.argmax(search >= OCTAVE_TOLERANCE * best[:, None], axis=1)
    lags = np.array([low + _summit(row, start) for row, start in zip(search, first, strict=True)])
    peak = auto[np.arange(count), np.round(lags).astype(int)]
    loud = energy > max(float(energy.max()), 1e-12) * 10 ** (LOUDNESS_FLOOR_DB / 10)
    voiced = loud & (peak >= PERIODICITY)
    return np.where(voiced, SAMPLE_RATE / lags, np.nan)


def _summit(row: npt.NDArray[np.float64], start: int) -> float:
    """The top of the peak ``start`` climbs, between samples (a parabola through three)."""
    top = start
    while top + 1 < len(row) and row[top + 1] > row[top]:
        top += 1
    if 0 < top < len(row) - 1:
        left, mid, right = row[top - 1], row[top], row[top + 1]
        curve = left - 2 * mid + right
        if curve < 0:
            return float(top + 0.5 * (left - right) / curve)
    return float(top)


def final_fall(pcm16k: Float32) -> float | None:
    """Semitones from the turn's median pitch to the pitch of its last voiced 50 ms
    (negative when the voice fell as it stopped); None when too little of the turn's last
    :data:`CONTEXT_S` seconds is voiced to say."""
    tail = np.asarray(pcm16k)[-int(CONTEXT_S * SAMPLE_RATE) :]
    pitch = pitch_track(tail)
    voiced = np.flatnonzero(~np.isnan(pitch))
    if len(voiced) < MIN_VOICED_FRAMES:
        return None
    semitones = 12.0 * np.log2(pitch[voiced] / 100.0)
    return float(semitones[-END_FRAMES:].mean() - np.median(semitones))
