"""The voice's last movement: whether a caller's voice fell to the bottom of its range as it
stopped (final lowering), or rose on its last syllable (a question's final rise).

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

A yes/no question ends the other way: its last syllable rises ("Can I pay by bank
transfer?"), a turn-yielding cue too when the words are a finished question (Gravano and
Hirschberg's "high-rise" ending; a level plateau holds the turn). :func:`final_rise`
measures it: the pitch of the voice's last 30 ms against its pitch 150 ms earlier in the
same voiced stretch, in semitones (positive: it rose). It is read over the last syllable
alone because the rise is local: a question's whole contour may sit low or high in the
speaker's range, which :func:`final_fall`'s comparison with the median would mix in.
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
#: Fewer voiced frames than this (0.15 s, a short word: "Yes.") and the range is unknown:
#: no verdict.
MIN_VOICED_FRAMES = 15
#: The end's pitch is the mean of this many last voiced frames (50 ms).
END_FRAMES = 5
#: Under this much voice (0.6 s: "Yes.", "No thanks.", "That's right.") the turn holds one or
#: two accents, and its median is the accent itself, not the speaker's range: the fall of
#: such a turn is measured from its peak (the PEAK_PERCENTILE of its pitch), where a short
#: answer said as a statement falls from. On the caller set this reads hibari's "That's
#: right." and "No thanks." as falls (0.7 and 0.3 semitones from the median, 4.6 and 2.9
#: from the peak); on the pause set the first halves this short stay under the fall but
#: for one that ends on "to", a fragment, which a fall does not finish.
SHORT_VOICED_FRAMES = 60
PEAK_PERCENTILE = 90
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
    voiced = loud & (peak >= PERIODICITY) & _inside_sound(audio, count)
    return mend_octaves(np.where(voiced, SAMPLE_RATE / lags, np.nan))


#: A voiced frame this many semitones or more above the voice just before it, and above the
#: turn's median, is the tracker taking a fraction of the period, not the voice: a voice
#: moves a semitone or two in 10 ms, and an octave is 12.
OCTAVE_JUMP = 8.0
#: The voice before a frame, for :func:`mend_octaves`: the last voiced frame if it is at most
#: this many frames (200 ms, a consonant or two) earlier, else the track's median.
OCTAVE_BRIDGE_FRAMES = 20


def mend_octaves(pitch: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """``pitch`` (Hz, NaN unvoiced) with each frame read an octave or more above the voice
    around it moved down by whole octaves. The track takes the shortest lag whose peak is
    near the best (:data:`OCTAVE_TOLERANCE`), so its errors are upward, where the voice is
    weak at a turn's end: espeak-ng's "That's right." with its last syllable read an octave
    up passed for a rise of 15 semitones and hid a fall of 6. A reading an octave *below*
    is left as it is: the period really looked doubled there, which is a creaky voice (vocal
    fry), heard as low, and a turn's end as often as not."""
    voiced = np.flatnonzero(~np.isnan(pitch))
    if len(voiced) == 0:
        return pitch
    semitones = 12.0 * np.log2(pitch / 100.0)
    median = float(np.median(semitones[voiced]))
    mended = semitones.copy()
    last: int | None = None
    for i in map(int, voiced):
        near = last is not None and i - last <= OCTAVE_BRIDGE_FRAMES
        anchor = mended[last] if near and last is not None else median
        above = min(semitones[i] - anchor, semitones[i] - median)
        if above >= OCTAVE_JUMP:
            mended[i] -= 12.0 * max(1.0, float(np.round(above / 12.0)))
        last = i
    return np.asarray(100.0 * 2.0 ** (mended / 12.0))


def _inside_sound(audio: npt.NDArray[np.float64], count: int) -> npt.NDArray[np.bool_]:
    """Per frame: whether it ends before the sound does. A frame running on into the silence
    after the voice's end correlates a shortened voice, which reads shorter lags: a pitch
    far above the voice's that would pass for a rise at the end of every turn."""
    hops = len(audio) // HOP
    power = np.einsum("ij,ij->i", *(2 * [audio[: hops * HOP].reshape(hops, HOP)]))
    loud = np.flatnonzero(power >= max(float(power.max()), 1e-12) * 10 ** (LOUDNESS_FLOOR_DB / 10))
    sound_end = (int(loud[-1]) + 1) * HOP if len(loud) else 0
    return np.asarray(HOP * np.arange(count) + FRAME <= sound_end)


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
    :data:`CONTEXT_S` seconds is voiced to say. A short turn (under
    :data:`SHORT_VOICED_FRAMES`) is measured from its peak instead (see there)."""
    tail = np.asarray(pcm16k)[-int(CONTEXT_S * SAMPLE_RATE) :]
    pitch = pitch_track(tail)
    voiced = np.flatnonzero(~np.isnan(pitch))
    if len(voiced) < MIN_VOICED_FRAMES:
        return None
    semitones = 12.0 * np.log2(pitch[voiced] / 100.0)
    short = len(voiced) < SHORT_VOICED_FRAMES
    reference = np.percentile(semitones, PEAK_PERCENTILE) if short else np.median(semitones)
    return float(semitones[-END_FRAMES:].mean() - reference)


#: :func:`final_rise` compares the last 30 ms of voicing with the 30 ms starting 150 ms
#: before its end (frames of voiced 10 ms pitch, a last syllable's length)...
RISE_END_FRAMES = 3
RISE_SPAN_FRAMES = 15
#: ... within the last voiced stretch: voiced frames with no gap of more than 20 ms (a
#: voiceless consonant inside the syllable, or a frame the track missed).
RISE_BRIDGE_FRAMES = 2


def final_rise(pcm16k: Float32) -> float | None:
    """Semitones the pitch rose over the voice's last syllable: its last 30 ms against the
    30 ms :data:`RISE_SPAN_FRAMES` voiced frames before that end (from the stretch's start
    when it is shorter); None when the last voiced stretch is too short to say (under 60 ms)."""
    pitch = pitch_track(np.asarray(pcm16k)[-int(CONTEXT_S * SAMPLE_RATE) :])
    voiced = np.flatnonzero(~np.isnan(pitch))
    if len(voiced) == 0:
        return None
    breaks = np.flatnonzero(np.diff(voiced) > RISE_BRIDGE_FRAMES + 1)
    stretch = voiced[breaks[-1] + 1 :] if len(breaks) else voiced
    if len(stretch) < 2 * RISE_END_FRAMES:
        return None
    semitones = 12.0 * np.log2(pitch[stretch] / 100.0)
    earlier = semitones[-RISE_SPAN_FRAMES:][:RISE_END_FRAMES]
    return float(semitones[-RISE_END_FRAMES:].mean() - earlier.mean())
