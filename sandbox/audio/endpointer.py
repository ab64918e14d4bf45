"""Where a caller's turn ends: a sans-I/O state machine fed one VAD decision per frame.

No clock, no threads, no audio: the host feeds ``(voiced, t_ms)`` for every 30 ms frame, in
order, and acts on the events returned.

How a turn ends, with the parts we have (a frame VAD and Whisper, no turn-taking model)
---------------------------------------------------------------------------------------
After ``speculate_ms`` of silence the endpointer emits :class:`PauseStarted`; the host starts a
*speculative* transcription of the turn so far right then, so Whisper's time (see
:mod:`sandbox.audio.stt`) runs inside the pause instead of after it. The guess's shape decides
which of two windows closes the turn:

* it reads like a finished thought (:func:`looks_complete`: terminal punctuation, no trailing
  "and"/"so"/filler/article) -> the host calls ``hint_complete(True)`` and the turn closes as
  ``"confident"`` once the silence reaches ``confident_ms``;
* anything else (no guess yet, a fragment, nothing heard) -> the turn closes as ``"silence"``
  when the silence reaches ``silence_ms``: the silence-forced close.

A word (see below) during the pause emits :class:`Resumed`: the guess is stale, the silence
counter restarts, and the next pause makes a new guess.

The patience scale (stt.patience, 0..10, default 7) sets both windows
-------------------------------------------------------------------------
0 answers as soon as the recognizer can; 10 lets a caller finish a sentence they are still
assembling; 7 is the calibration the deployment runs when patience is unset. Each step waits
~25% longer for a confident close and ~20% longer for a silence-forced one (perceived patience
is roughly logarithmic in time), rounded up to whole 30 ms frames:

========  ===  ===  ===  ===  ===  ===  ====  ====  ====  ====  ====
patience    0    1    2    3    4    5     6     7     8     9    10
========  ===  ===  ===  ===  ===  ===  ====  ====  ====  ====  ====
confident 150  210  240  300  390  480   600   720   900  1140  1410
silence   450  540  660  780  960 1140  1350  1620  1950  2340  2790
========  ===  ===  ===  ===  ===  ===  ====  ====  ====  ====  ====

``speculate_ms`` is 150 ms: long enough that the gaps inside fluent speech (stop closures,
most commas) do not each cost a Whisper run, short enough that at patience 7 the guess
(150 ms + Whisper's time) is ready well before the confident window ends. At patience 0 it
is 90 ms: there the turn closes the moment the guess says it may, so every millisecond before
the guess starts is the caller's wait, and a guess started inside a word's gap is only thrown
away.
A change of patience applies at once, including to a pause already running: the next frame
is judged against the new windows.

What counts as speech
---------------------
A *word* is at least ``ONSET_VOICED`` voiced frames among the last ``ONSET_WINDOW`` (90 ms of
voicing in 120 ms). It starts a turn, extends one across a short VAD dropout, or resumes a
paused one. An isolated voiced frame (a click, a breath, VAD flicker) does not reset the
silence counter, but nothing is decided on a voiced frame: the 60 ms it takes to confirm a word
never counts towards a pause.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Literal

from sandbox.audio.vad import FRAME_MS

Reason = Literal["confident", "silence"]

ONSET_VOICED = 3
ONSET_WINDOW = 4
SPECULATE_MS = 150
#: Patience 0 starts its guess sooner (see the module docstring).
SPECULATE_EAGER_MS = 90
PATIENCE_DEFAULT = 7
PATIENCE_MAX = 10


@dataclass(frozen=True)
class Windows:
    """Silence, in ms, after which each thing happens."""

    speculate_ms: int
    confident_ms: int
    silence_ms: int


_CONFIDENT_MS = (150, 210, 240, 300, 390, 480, 600, 720, 900, 1140, 1410)
_SILENCE_MS = (450, 540, 660, 780, 960, 1140, 1350, 1620, 1950, 2340, 2790)


def windows_for(patience: int) -> Windows:
    """The endpointing windows for one step of the patience scale."""
    if not isinstance(patience, int) or not 0 <= patience <= PATIENCE_MAX:
        raise ValueError(f"patience must be an integer from 0 to {PATIENCE_MAX}, got {patience!r}")
    speculate = SPECULATE_EAGER_MS if patience == 0 else SPECULATE_MS
    return Windows(speculate, _CONFIDENT_MS[patience], _SILENCE_MS[patience])


@dataclass(frozen=True)
class SpeechStarted:
    """A turn began; ``t`` is the start of its first voiced frame."""

    t: int


@dataclass(frozen=True)
class PauseStarted:
    """The caller paused: transcribe the turn so far now. ``t`` is when this was decided."""

    t: int
    speech_end: int  # end of the last voiced frame: where the silence began


@dataclass(frozen=True)
class Resumed:
    """The caller spoke again inside the pause: discard the guess. ``t`` is the new onset."""

    t: int


@dataclass(frozen=True)
class TurnEnded:
    """The turn is over. ``t`` is when this was decided."""

    t: int
    reason: Reason
    speech_end: int


EndpointEvent = SpeechStarted | PauseStarted | Resumed | TurnEnded

_TRAILING_FRAGMENT = frozenset(
    word
    for group in (
        "and but or so because then if that which who whose when where",  # a clause follows
        "the a an my your our their his her its",  # a noun follows
        "to for of with at in on from",  # an object follows
        "um uh er erm hmm like well just also",  # fillers
        "i is are was were",  # a subject or verb waiting for the rest
    )
    for word in group.split()
)


def looks_complete(text: str) -> bool:
    """Whether a transcript reads like a finished thought (the endpointer's confidence cue).

    True for text ending in ``.``, ``?`` or ``!`` whose last word is not a conjunction,
    article, preposition, filler or other word that cannot end a sentence. Whisper marks an
    utterance it hears trailing off with ``...`` or no punctuation, which reads as unfinished.
    """
    stripped = text.strip()
    if not stripped or stripped.endswith(("...", "…")) or stripped[-1] not in ".?!":
        return False
    words = stripped.rstrip(".?!").split()
    return bool(words) and words[-1].strip(",;:\"'").lower() not in _TRAILING_FRAGMENT


class Endpointer:
    """Decides where a caller's turn ends. See the module docstring for the rules."""

    def __init__(self, patience: int = PATIENCE_DEFAULT, *, frame_ms: int = FRAME_MS) -> None:
        self._frame_ms = frame_ms
        self._windows = windows_for(patience)
        self._recent: deque[tuple[bool, int]] = deque(maxlen=ONSET_WINDOW)
        self._state: Literal["idle", "speaking", "paused"] = "idle"
        self._speech_end = 0
        self._complete = False

    @property
    def windows(self) -> Windows:
        """The windows in force now."""
        return self._windows

    def set_patience(self, patience: int) -> None:
        """Change patience now; a running pause is judged against the new windows next frame."""
        self._windows = windows_for(patience)

    def hint_complete(self, looks_complete: bool) -> None:
        """Verdict on the speculative transcript of the current pause (ignored outside one).

        True allows a confident close at ``confident_ms``; False leaves the close to
        ``silence_ms``. The host must not pass a verdict on a guess made before a
        :class:`Resumed`.
        """
        if self._state == "paused":
            self._complete = looks_complete

    def feed(self, voiced: bool, t_ms: int) -> list[EndpointEvent]:
        """One frame's VAD decision; ``t_ms`` is the frame's start. Returns what happened."""
        self._recent.append((voiced, t_ms))
        end = t_ms + self._frame_ms
        word = self._word_onset()
        if word is not None and (self._state == "idle" or word[1] > self._speech_end):
            return self._speech(word)
        if self._state == "idle" or voiced:
            return []  # a voiced frame may be the start of a word: judge silence on silence
        return self._silence(end)

    def _word_onset(self) -> tuple[int, int] | None:
        """(first voiced start, last voiced end) of the recent frames, if they make a word."""
        voiced = [t for v, t in self._recent if v]
        if len(voiced) < ONSET_VOICED:
            return None
        return voiced[0], voiced[-1] + self._frame_ms

    def _speech(self, word: tuple[int, int]) -> list[EndpointEvent]:
        onset, voiced_end = word
        events: list[EndpointEvent] = []
        if self._state == "idle":
            events.append(SpeechStarted(onset))
        elif self._state == "paused":
            events.append(Resumed(onset))
        self._state = "speaking"
        self._speech_end = max(self._speech_end, voiced_end)
        self._complete = False
        return events

    def _silence(self, end: int) -> list[EndpointEvent]:
        silent_ms = end - self._speech_end
        events: list[EndpointEvent] = []
        if self._state == "speaking" and silent_ms >= self._windows.speculate_ms:
            self._state = "paused"
            events.append(PauseStarted(end, self._speech_end))
        if self._state == "paused":
            reason: Reason | None = None
            if self._complete and silent_ms >= self._windows.confident_ms:
                reason = "confident"
            elif silent_ms >= self._windows.silence_ms:
                reason = "silence"
            if reason is not None:
                events.append(TurnEnded(end, reason, self._speech_end))
                self._state = "idle"
                self._complete = False
        return events
