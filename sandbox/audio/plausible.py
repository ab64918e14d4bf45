"""Whether a transcript is what the caller could have said in the clip it came from.

Whisper tiny.en in a shortened encoder window sometimes writes more than was said: a loop
("What do I need to bring? What do I need to bring? What do I ..."), the whole turn twice
("How much does a private lesson cost? How much does a private lesson cost?" from one
utterance), or a tail it invents after the voice ended. Before a transcript becomes a turn it
is checked here against the clip itself:

* a loop (a sentence three times or more in a row) is cut back to its first pass
  (:func:`unlooped`);
* a turn that is one passage twice, or that holds more words than its voice's length allows
  at a fast speaking rate (:data:`FAST_WORDS_PER_S`), is decoded again in Whisper's full
  window, where tiny.en does not loop on short clips; if that reading is plausible it is the
  turn;
* if the full window doubles it too, the double is kept when the voice was long enough to say
  it twice (a caller's "No. No."), else cut to one pass;
* if it still has too many words, the words Whisper placed after the voice ended (word
  timestamps against the clip's last voiced frame) are a tail it invented, and are dropped.

Each change is a :class:`~sandbox.call.caller_events.TranscriptMend`, carried with the turn,
so the session's report and the bench count them. The decoding is handed in as callables.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from sandbox.audio.resample import Float32, as_int16
from sandbox.audio.vad import FrameVad
from sandbox.call.caller_events import TranscriptMend

#: A fast speaker's words a second: 270 words a minute, past the quickest conversational
#: English (~220) and espeak-ng's fastest caller in the bench (190).
FAST_WORDS_PER_S = 4.5
#: Words any voice may carry on top, so a short clip's one or two words always fit.
SPARE_WORDS = 1
#: Whisper's word timestamps drift by about a frame or two past a word's real edges.
TAIL_MARGIN_S = 0.15
#: Characters that are not letters but sit inside a word: the apostrophe ("don't") and the
#: zero-width joiners of Indic and Persian script.
_IN_WORDS = "'\u200c\u200d"
#: A sentence with the punctuation and space after it, or an unfinished last one.
_SENTENCE = re.compile(r"[^.?!]+[.?!]*\s*")


class TimedWord(Protocol):
    """A recognized word and where it starts in the clip (seconds)."""

    @property
    def text(self) -> str:
        """The word as written."""

    @property
    def start(self) -> float:
        """Its start in the clip, in seconds."""


@dataclass(frozen=True)
class Reading:
    """A transcript checked against its clip: the text, and how it was mended (None: as
    Whisper first wrote it) with what it first wrote."""

    text: str
    mend: TranscriptMend | None = None
    first: str = ""


def plain_words(text: str) -> list[str]:
    """``text`` as lowercase words in any script, punctuation dropped, for comparing
    passages and counting words: a word is letters, digits, their combining marks (a
    Devanagari vowel sign, an Arabic vowel mark) and the apostrophes and joiners inside it."""
    kept = (c if unicodedata.category(c)[0] in "LMN" or c in _IN_WORDS else " " for c in text)
    return "".join(kept).lower().split()


def unlooped(text: str) -> str:
    """A transcript that ran away in a loop ("What do I need to bring? What do I need to
    bring? What do I need to bring? What do I need to") cut back to its first pass.

    A loop is the same sentence three times or more in a row, or twice and then the start of
    it again, unfinished: a caller's "No. No." stays as said (:func:`as_said` decides doubles).
    """
    pieces = _SENTENCE.findall(text)
    words = [plain_words(piece) for piece in pieces]
    kept: list[str] = []
    index = 0
    while index < len(pieces):
        run = 1
        while index + run < len(pieces) and words[index + run] == words[index] and words[index]:
            run += 1
        after = index + run
        trails = (
            after == len(pieces) - 1
            and pieces[after].rstrip()[-1:] not in ".?!"
            and words[index][: len(words[after])] == words[after]
        )
        kept.append(pieces[index])
        if run >= 3 or (run == 2 and trails):
            index = after + 1 if trails else after
        else:
            kept.extend(pieces[index + 1 : after])
            index = after
    return "".join(kept).strip()


def first_of_double(text: str) -> str | None:
    """The first pass of a transcript that is one passage said twice in a row ("Can I pay?
    Can I pay?", a passage of one or more sentences); None when it is not one."""
    pieces = _SENTENCE.findall(text)
    if len(pieces) < 2 or len(pieces) % 2:
        return None
    half = len(pieces) // 2
    first, second = "".join(pieces[:half]), "".join(pieces[half:])
    words = plain_words(first)
    return first.strip() if words and words == plain_words(second) else None


def words_allowed(voice_s: float) -> int:
    """The most words a voice of ``voice_s`` seconds can say at a fast speaking rate."""
    return math.ceil(FAST_WORDS_PER_S * voice_s) + SPARE_WORDS


def voice_span(audio: Float32, sample_rate: int = 16000) -> tuple[float, float] | None:
    """Where the voice starts and ends in ``audio`` (seconds: the first voiced frame's start,
    the last one's end), by the listener's own VAD; None when no frame is voiced."""
    vad = FrameVad(sample_rate=sample_rate)
    size = vad.frame_samples
    pcm = as_int16(np.asarray(audio, dtype=np.float32))
    voiced = [
        start
        for start in range(0, len(pcm) - size + 1, size)
        if vad.is_speech(pcm[start : start + size])
    ]
    if not voiced:
        return None
    return voiced[0] / sample_rate, (voiced[-1] + size) / sample_rate


def _fits(text: str, voice_s: float) -> bool:
    return len(plain_words(text)) <= words_allowed(voice_s)


def _plausible(text: str, voice_s: float) -> bool:
    return first_of_double(text) is None and _fits(text, voice_s)


def as_said(
    text: str,
    span: tuple[float, float] | None,
    full_window: Callable[[], str],
    timed_words: Callable[[], Sequence[TimedWord]],
) -> Reading:
    """``text`` (Whisper's reading of a clip whose voice spans ``span``) checked against the
    clip, as the module docstring says. ``full_window``: the clip decoded again in Whisper's
    full window; ``timed_words``: its words with their timestamps. Each is called only when
    the reading needs it."""
    kept = unlooped(text)
    mend = None if kept == text else TranscriptMend.LOOPED
    if span is None or _plausible(kept, span[1] - span[0]):
        return Reading(kept, mend, text if mend else "")
    voice_s = span[1] - span[0]
    doubled = first_of_double(kept) is not None
    again = unlooped(full_window())
    if plain_words(again) and _plausible(again, voice_s):
        return Reading(again, TranscriptMend.DOUBLED if doubled else TranscriptMend.OVERLONG, text)
    reread = again if plain_words(again) else kept  # the full window heard nothing: keep ours
    once = first_of_double(reread)
    if once is not None:
        if _fits(reread, voice_s):  # the full window doubles it too, and it fits: as said
            return Reading(reread, mend, text if mend else "")
        return Reading(once, TranscriptMend.DOUBLED, text)
    said = [w.text for w in timed_words() if w.start < span[1] + TAIL_MARGIN_S]
    if not said:  # no word placed inside the voice: the timestamps say nothing of a tail
        return Reading(kept, mend, text if mend else "")
    return Reading(" ".join(said).strip(), TranscriptMend.TAIL, text)
