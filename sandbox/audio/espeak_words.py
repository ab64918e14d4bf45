"""Where each word of a text sits in espeak-ng's audio, from espeak-ng's own word events.

espeak-ng's synthesis reports an ``espeakEVENT_WORD`` at the sample each word it says
starts at, with the word's 1-based character position in the text, and an
``espeakEVENT_END`` where each clause's sound ends. A text word's span runs from its first
event to the next word's start or the clause's end, whichever comes first. A word espeak
splits (``3,5`` is said "drei Komma fünf", three events) keeps its first event; a token it
does not say (``—``) has no event and is no word, as with Piper.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from enum import IntEnum

from sandbox.audio.tts import WordSpan
from sandbox.audio.wordalign import split_words


class EventKind(IntEnum):
    """The ``espeak_EVENT_TYPE`` values used here (speak_lib.h)."""

    WORD = 1
    END = 5


@dataclass(frozen=True)
class SynthEvent:
    """One espeak-ng event: its kind, 1-based character position and output sample."""

    kind: EventKind
    text_position: int
    sample: int


def token_starts(text: str, events: list[SynthEvent]) -> list[int | None]:
    """Per whitespace-separated token of ``text``, the sample its first word event is at;
    None for a token espeak did not say as a word."""
    tokens = split_words(text)
    begins = [t.start for t in tokens]
    starts: list[int | None] = [None] * len(tokens)
    for event in events:
        if event.kind is EventKind.WORD:
            index = bisect_right(begins, event.text_position - 1) - 1
            if index >= 0 and event.text_position - 1 < tokens[index].end and starts[index] is None:
                starts[index] = event.sample
    return starts


def word_spans(text: str, events: list[SynthEvent], total: int) -> tuple[WordSpan, ...]:
    """The words of ``text`` espeak said, each on its samples, in order.

    ``total`` is how many samples the synthesis made: the last word's end when no clause
    end follows it.
    """
    said = [
        (token.text, start)
        for token, start in zip(split_words(text), token_starts(text, events), strict=True)
        if start is not None
    ]
    ends = sorted(e.sample for e in events if e.kind is EventKind.END)
    spans: list[WordSpan] = []
    done = 0  # where the previous word ended: words never overlap, nor go back
    for at, (word, first) in enumerate(said):
        start = min(max(first, done), total)
        following = said[at + 1][1] if at + 1 < len(said) else total
        later_ends = ends[bisect_right(ends, start) :]
        end = max(start, min(following, later_ends[0] if later_ends else total, total))
        spans.append(WordSpan(word, start, end))
        done = end
    return tuple(spans)
