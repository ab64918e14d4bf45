"""A saved real-audio call's caller lines as audio: what ``replay --audio real`` speaks again.

The session's microphone leg (the caller as the call heard them, after echo cancellation,
on the call's clock) is cut into one clip per spoken step of the caller script
(:func:`~sandbox.replay.caller_script.caller_steps`), in the same order: a turn from the
onset of its first stretch of voice (``caller_speaking``, or the ``barge_in`` that took the
floor) to its end of speech; a backchannel over its own voiced span. Each clip keeps a
margin of quiet either side, so the endpointing and Whisper meet it as they met the caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from sandbox.call.caller_events import (
    Backchannel,
    BargeIn,
    CallerSpeaking,
    DroppedEmpty,
    TurnCommitted,
)
from sandbox.call.effects import CallerIdle
from sandbox.call.played import WordPlayed
from sandbox.record.store import StoredEvent

#: Audio kept either side of a line's voiced span (the VAD's own pre-roll is 300 ms).
MARGIN_MS = 300


@dataclass(frozen=True)
class SpokenLine:
    """One caller line in the microphone leg: its voiced span (call ms) and how many words
    of the bot's reply had played when its clip starts (what a barge-in or backchannel
    waits for: the word where the caller began, not where the runtime decided)."""

    start: int
    end: int
    after_words: int
    #: When the ``after_words``-th word began (None: no word had).
    word_ms: int | None = field(default=None, compare=False)
    #: Played over the bot: the clip starts at that word, so the voice begins as far into
    #: the reply as it did (a clip from the margin before the voice would begin it early).
    over_bot: bool = False

    @property
    def clip_ms(self) -> int:
        """Where the line's clip starts in the leg (call ms)."""
        if self.over_bot and self.word_ms is not None:
            return self.word_ms
        return self.start - MARGIN_MS


def spoken_lines(events: Sequence[StoredEvent]) -> list[SpokenLine]:
    """Each spoken caller line — turns and backchannels — in order."""
    lines: list[SpokenLine] = []
    onset: int | None = None
    words: list[int] = []  # when each word of the bot's current reply started

    def line(start: int, end: int) -> SpokenLine:
        after = sum(t < start - MARGIN_MS for t in words)
        return SpokenLine(start, end, after, words[after - 1] if after else None)

    for event in events:
        match event.value:
            case WordPlayed():
                words.append(event.t_ms)
            case BargeIn(t_onset=t):
                onset = t if onset is None else onset
            case CallerSpeaking(t=t):
                onset = t if onset is None else onset
            case DroppedEmpty():
                onset = None  # a cough or a door: no line, and not the start of the next one
            case TurnCommitted(t_end_of_speech=end):
                lines.append(line(end if onset is None else onset, end))
                onset, words = None, []
            case Backchannel(t_onset=start, t_end=end):
                lines.append(line(start, end))
            case CallerIdle():
                words = []
    return lines


def cut_clips(
    mic: npt.NDArray[np.int16], rate: int, lines: list[SpokenLine]
) -> list[npt.NDArray[np.int16]]:
    """The microphone leg cut at each line's span, with :data:`MARGIN_MS` either side."""
    clips = []
    for spoken in lines:
        first = max(0, spoken.clip_ms * rate // 1000)
        last = min(len(mic), (spoken.end + MARGIN_MS) * rate // 1000)
        clips.append(mic[first:last].copy())
    return clips
