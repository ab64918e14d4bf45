"""Where each word of a text starts in a recording of it, found without the recording's maker.

The heard-text bench needs word onsets that owe nothing to Piper (whose phoneme durations the
playout clock uses) nor to Whisper's clipped-word guesses. espeak-ng, a formant synthesizer
unrelated to Piper's voice (Piper borrows only espeak's phonemes, never its timing), says the
same text and reports, through its library's word events,
the sample each of its words starts at. Dynamic time warping of the two renderings' cepstra
(MFCC, mean and variance normalised per rendering, so voice and loudness matter less than
what is said) maps each of espeak's word starts onto the recording. Three renderings (two
voices, two rates) are warped and each word's onset is their median, so one rendering the
warp follows badly does not decide. Across a pause the warp is loosest (espeak's pauses are
not Piper's), and there the audio itself says where the word starts: where the sound comes
back after the pause, to the sample. A pause is longer than a stop consonant's closure
(:data:`PAUSE_S`), which is silence inside speech, not between words.

How close this comes: warping one espeak rendering onto another of the same text at another
rate puts word starts within ~10 ms; warping espeak onto Piper is rougher (a voice unlike the
recording's): against Piper's own word starts, ~50 ms apart on average, the warped starts
earlier (median 44 ms), only ~20% of them within 20 ms. After a pause, where the audio shows
the true start, Piper's starts come ~15 ms after the sound does, so part of that gap is
Piper's, most of it the warp's.

libespeak-ng is the system library behind the ``espeak-ng`` command (Debian: espeak-ng), the
one the espeak voices speak through; it is never downloaded at run time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sandbox.audio.espeak_tts import library
from sandbox.audio.espeak_words import token_starts
from sandbox.audio.resample import as_float32, resample

#: The renderings warped onto the recording: (espeak voice, words per minute).
REFERENCES = (("en-us", 175), ("en-us", 140), ("en", 175))
#: Analysis rate, frame and hop: 5 ms steps place a word start to within a few ms.
RATE = 16000
FRAME = 400  # 25 ms
HOP = 80  # 5 ms
_MELS = 40
_CEPSTRA = 13  # c1..c12 kept: c0 (loudness) is dropped
#: A pause: at least this long (s) this far below the loudest 5 ms (dB); a word whose warped
#: start lies within SNAP_S of a pause's end starts where the sound comes back.
PAUSE_S = 0.12
PAUSE_DB = 60.0
SNAP_S = 0.1


@dataclass(frozen=True)
class Reference:
    """espeak's rendering of a text: samples, their rate, and per word of the text (its
    whitespace-separated tokens) the sample it starts at, or None for a token espeak did
    not speak as a word of its own."""

    samples: npt.NDArray[np.int16]
    sample_rate: int
    starts: tuple[int | None, ...]


def espeak_reference(text: str, voice: str = "en-us", wpm: int = 175) -> Reference:
    """espeak-ng's rendering of ``text`` and where its words start (the process's one
    libespeak-ng, :func:`sandbox.audio.espeak_tts.library`, the espeak voices' own)."""
    samples, events = library().synthesize(voice, text, wpm)
    return Reference(samples, library().sample_rate, tuple(token_starts(text, events)))


def cepstra(samples: npt.NDArray[np.generic], sample_rate: int) -> npt.NDArray[np.float64]:
    """MFCC c1..c12 every 5 ms, each coefficient normalised to mean 0, variance 1."""
    audio = resample(as_float32(samples), sample_rate, RATE).astype(np.float64)
    audio = np.append(audio[:1], audio[1:] - 0.97 * audio[:-1])  # pre-emphasis
    audio = np.pad(audio, (0, max(0, FRAME - len(audio))))
    frames = np.lib.stride_tricks.sliding_window_view(audio, FRAME)[::HOP] * np.hamming(FRAME)
    power = np.abs(np.fft.rfft(frames, n=512, axis=1)) ** 2
    mel = power @ _mel_filters()
    logs = np.log(np.maximum(mel, 1e-10 * max(float(mel.max()), 1e-20)))
    ceps = logs @ _dct()[:, 1:_CEPSTRA]
    result: npt.NDArray[np.float64] = (ceps - ceps.mean(0)) / (ceps.std(0) + 1e-9)
    return result


def _mel_filters() -> npt.NDArray[np.float64]:
    def to_mel(hz: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        return 2595 * np.log10(1 + hz / 700)

    edges_mel = np.linspace(to_mel(np.array(60.0)), to_mel(np.array(7600.0)), _MELS + 2)
    edges = 700 * (10 ** (edges_mel / 2595) - 1)
    freqs = np.fft.rfftfreq(512, 1 / RATE)
    low, mid, high = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    rising = (freqs - low) / (mid - low)
    falling = (high - freqs) / (high - mid)
    filters: npt.NDArray[np.float64] = np.maximum(0.0, np.minimum(rising, falling)).T
    return filters


def _dct() -> npt.NDArray[np.float64]:
    n = np.arange(_MELS)
    basis: npt.NDArray[np.float64] = np.cos(np.pi / _MELS * (n[:, None] + 0.5) * n[None, :])
    return basis


def _accumulated(
    a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Each pair of frames' distance, and the least total distance of a warp from both
    starts to that pair (steps (1,0), (0,1), (1,1))."""
    squared = (a**2).sum(1)[:, None] + (b**2).sum(1)[None, :] - 2 * a @ b.T
    cost = np.sqrt(np.maximum(squared, 0.0))
    total = np.empty_like(cost)
    total[0] = np.cumsum(cost[0])
    for i in range(1, len(a)):
        # total[i, j] = cost + min(total[i-1, j], total[i-1, j-1], total[i, j-1]); the last
        # term runs along the row: with S the row's running cost sum, the row is
        # S[j] + min over k <= j of (m[k] - S[k-1]), a running minimum.
        above = total[i - 1] + cost[i]
        diagonal = np.concatenate(([np.inf], total[i - 1, :-1] + cost[i, 1:]))
        best = np.minimum(above, diagonal)
        running = np.cumsum(cost[i])
        total[i] = running + np.minimum.accumulate(best - running)
    return cost, total


def open_end(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> int:
    """The frame of ``b`` where a warp of the whole of ``a`` onto a prefix of ``b`` ends at
    least cost: where a recording of a text's first words (``a``) stops in a rendering of
    the whole text (``b``)."""
    _cost, total = _accumulated(a, b)
    return int(np.argmin(total[-1]))


def warp(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """Dynamic time warping of frame sequences ``a`` and ``b`` (Euclidean distance, steps
    (1,0), (0,1), (1,1)): for each frame of ``a``, the frame of ``b`` it is matched to (of
    several, the closest; of equally close ones, the first)."""
    cost, total = _accumulated(a, b)
    matched = np.zeros(len(a), np.int64)
    closest = np.full(len(a), np.inf)
    i, j = len(a) - 1, len(b) - 1
    while True:
        # Of the frames of b matched to frame i of a, the one most like it: a pause in b
        # that a lacks is matched to a's frames either side, never chosen for them.
        if cost[i, j] <= closest[i]:
            matched[i], closest[i] = j, cost[i, j]
        if i == 0 and j == 0:
            return matched
        if i == 0:
            j -= 1
        elif j == 0:
            i -= 1
        else:
            steps = (total[i - 1, j - 1], total[i - 1, j], total[i, j - 1])
            step = int(np.argmin(steps))
            i, j = (i - 1, j - 1) if step == 0 else (i - 1, j) if step == 1 else (i, j - 1)


def word_onsets(samples: npt.NDArray[np.generic], sample_rate: int, text: str) -> list[int | None]:
    """Per whitespace-separated token of ``text``, the sample of ``samples`` (a recording of
    ``text``) its word starts at: the median over :data:`REFERENCES` of espeak's word start
    warped onto the recording; None for a token espeak did not speak as a word."""
    target = cepstra(samples, sample_rate)
    found: list[list[int | None]] = []
    for voice, wpm in REFERENCES:
        reference = espeak_reference(text, voice, wpm)
        matched = warp(cepstra(reference.samples, reference.sample_rate), target)
        found.append(
            [
                _onset(start, reference.sample_rate, matched, sample_rate)
                for start in reference.starts
            ]
        )
    ends = pause_ends(samples, sample_rate)
    snap = SNAP_S * sample_rate
    onsets: list[int | None] = []
    for per_word in zip(*found, strict=True):
        known = [onset for onset in per_word if onset is not None]
        if not known:
            onsets.append(None)
            continue
        onset = round(float(np.median(known)))
        near = [end for end in ends if abs(end - onset) <= snap]
        onsets.append(min(near, key=lambda end: abs(end - onset)) if near else onset)
    return onsets


def pause_ends(samples: npt.NDArray[np.generic], sample_rate: int) -> list[int]:
    """Where the sound comes back after each pause (:data:`PAUSE_S` of near silence), to the
    sample: the first sample of the loud 5 ms block at the pause's end that is itself above
    the silence level."""
    audio = np.asarray(samples, np.float64)
    block = sample_rate * HOP // RATE
    count = len(audio) // block
    if count == 0:
        return []
    power = (audio[: count * block].reshape(count, block) ** 2).mean(1)
    level = float(power.max()) * 10 ** (-PAUSE_DB / 10)
    quiet = power <= level
    needed = round(PAUSE_S * sample_rate / block)
    ends: list[int] = []
    run = 0
    for index, silent in enumerate(quiet):
        if silent:
            run += 1
            continue
        if run >= needed:
            start = index * block
            loud = np.flatnonzero(audio[start : start + block] ** 2 > level)
            ends.append(start + int(loud[0]) if len(loud) else start)
        run = 0
    return ends


def _onset(
    start: int | None, reference_rate: int, matched: npt.NDArray[np.int64], sample_rate: int
) -> int | None:
    """A reference word start (a sample at ``reference_rate``) as a sample of the recording."""
    if start is None:
        return None
    frame = min(round(start * RATE / reference_rate / HOP), len(matched) - 1)
    return round(int(matched[frame]) * HOP * sample_rate / RATE)
