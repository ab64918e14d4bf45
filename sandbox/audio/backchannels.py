"""What a short burst of caller speech over the bot said: a noise, a backchannel, a bid for
the floor, or unclear.

The floor judge (:mod:`sandbox.audio.bargein`) asks this of the speculative transcript of a
short burst. A backchannel is nothing but acknowledgement tokens ("mm-hmm", "okay", "yeah
right"); a noise is what Whisper renders a cough, a laugh or a door as: nothing, a bracketed
sound description, or its well-known hallucinations on non-speech ("you", "thank you"). A
bid for the floor holds a word people cut in with ("stop", "wait", "no", "sorry", "hold
on"). Anything else is unclear: tiny.en, given half a second of "mm hmm" with some of the
bot's echo under it, can write "And then the...", so unknown words alone never cut the bot
(a caller who meant it goes on talking, and a sentence takes the floor by its length).
"""

from __future__ import annotations

import enum
import re

#: Acknowledgement tokens, as Whisper tiny.en writes them (lower case, no punctuation).
BACKCHANNEL_WORDS = frozenset(
    {
        "m", "mm", "mmm", "mhm", "mmhmm", "hmm", "hm", "uh", "huh", "um", "ah", "aha", "oh",
        "okay", "ok", "kay", "yeah", "yep", "yup", "yes", "right", "sure", "alright",
        "cool", "nice", "great", "fine", "good", "wow", "gotcha", "true", "exactly",
        "indeed", "i", "see", "got", "it", "ha",
    }
)  # fmt: skip
#: Words people cut in with: one of them in a short burst takes the floor.
FLOOR_WORDS = frozenset(
    {
        "stop", "wait", "no", "nope", "hold", "hang", "sorry", "excuse", "pardon", "what",
        "hey", "hello", "actually", "but", "listen", "moment", "second", "sec", "enough",
        "cancel", "repeat", "again", "quiet", "shush",
    }
)  # fmt: skip
#: Whisper's usual output for non-speech: taken as a noise, never as words.
NON_SPEECH = frozenset({"", "you", "thank you", "thanks", "bye"})
#: A backchannel is short: more tokens than this is a sentence, whatever its words.
MAX_TOKENS = 4

_ANNOTATION = re.compile(r"\[[^\]]*\]|\([^)]*\)|\*[^*]*\*")
_TOKEN = re.compile(r"[a-z]+(?:-[a-z]+)*")


class Burst(enum.StrEnum):
    """What a burst over the bot was."""

    NOISE = "noise"
    BACKCHANNEL = "backchannel"
    FLOOR = "floor"
    UNCLEAR = "unclear"


def tokens(text: str) -> list[str]:
    """A transcript's words, lower case, without annotations ("[cough]") or punctuation, and
    with a run of the same word or phrase kept once: Whisper given a short burst in a short
    window can loop ("Okay Okay Okay ...", "I see... I see..."), and "yeah yeah" is as much a
    backchannel as "yeah"."""
    plain = _ANNOTATION.sub(" ", text.lower())
    return _unrepeated(_TOKEN.findall(plain.replace("'", "")))


def _unrepeated(words: list[str]) -> list[str]:
    """``words`` with each immediate repeat of the last one to three words dropped."""
    kept: list[str] = []
    for word in words:
        kept.append(word)
        for n in (1, 2, 3):
            if len(kept) >= 2 * n and kept[-n:] == kept[-2 * n : -n]:
                del kept[-n:]
                break
    return kept


def classify(text: str) -> Burst:
    """Judge a burst's transcript; see the module docstring."""
    tokens_ = tokens(text)
    if " ".join(tokens_) in NON_SPEECH:
        return Burst.NOISE
    parts = [part for token in tokens_ for part in token.split("-")]
    if any(p in FLOOR_WORDS for p in parts):
        return Burst.FLOOR
    if len(tokens_) <= MAX_TOKENS and all(p in BACKCHANNEL_WORDS for p in parts):
        return Burst.BACKCHANNEL
    return Burst.UNCLEAR
