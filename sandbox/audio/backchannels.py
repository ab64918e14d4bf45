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

The words are the caller's language's (stt.language): German's "ja", "genau", Hindi's
"haan", "theek hai", "accha" are backchannels there, as 000 says of "haan"; a language with
no words of its own here (:func:`own_words`) is judged by the hums every language shares.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from collections.abc import Mapping

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
#: The hums and "okay" a caller says in any language: a language without words of its own
#: below is judged by these (and its floor words by length alone).
ANY_LANGUAGE_BACKCHANNELS = frozenset(
    {"m", "mm", "mmm", "mhm", "mmhmm", "hmm", "hm", "uh", "um", "ah", "aha", "oh", "okay", "ok"}
)
#: Hindustani's words in the Urdu script: Urdu's own, and how Whisper base writes much of a
#: Hindi caller's speech ("haan", "ji", "theek hai", "accha"; "ruko", "nahin", "suniye").
_URDU_BACKCHANNELS = frozenset({"ہاں", "ہان", "جی", "ٹھیک", "ہے", "اچھا", "صحیح", "بالکل"})
_URDU_FLOOR_WORDS = frozenset({"رکو", "رکیے", "نہیں", "سنو", "سنیے", "لیکن", "کیا", "معاف"})
#: Each language's own acknowledgements and floor words, as Whisper base writes them in
#: that language (German in Latin letters; Hindi in Devanagari, the script Whisper base
#: writes it in, and romanised, as a caller types it in a script). English is above.
_OWN_BACKCHANNELS: Mapping[str, frozenset[str]] = {
    "de": frozenset(
        {
            "ja", "jaja", "jap", "jo", "genau", "richtig", "gut", "stimmt", "klar", "alles",
            "achso", "ach", "so", "aha", "verstehe", "ich", "verstanden", "natürlich",
            "sicher", "prima", "super", "schön", "jawohl",
        }
    ),
    "hi": frozenset(
        {
            "हाँ", "हां", "हा", "जी", "ठीक", "है", "अच्छा", "अच्छे", "हम्म", "हूँ", "हूं", "सही",
            "बिल्कुल", "ओके", "haan", "han", "haa", "ji", "theek", "thik", "hai", "accha",
            "acha", "achha", "sahi", "bilkul", *_URDU_BACKCHANNELS,
        }
    ),
    "ur": _URDU_BACKCHANNELS,
    "fr": frozenset(
        {"oui", "ouais", "daccord", "voilà", "bien", "sûr", "exactement", "bon"}
    ),
    "es": frozenset({"sí", "si", "vale", "claro", "bueno", "exacto", "ya", "bien", "aja"}),
}  # fmt: skip
_OWN_FLOOR_WORDS: Mapping[str, frozenset[str]] = {
    "de": frozenset(
        {
            "stopp", "stop", "halt", "warte", "warten", "moment", "nein", "entschuldigung",
            "entschuldigen", "sorry", "aber", "hallo", "was", "wiederholen", "nochmal",
            "ruhe",
        }
    ),
    "hi": frozenset(
        {
            "रुको", "रुकिए", "रुकिये", "रुकें", "नहीं", "नही", "सुनो", "सुनिए", "सुनिये", "लेकिन",
            "मिनट", "क्या", "माफ़", "माफ", "हेलो", "ruko", "rukiye", "nahin", "nahi", "suno",
            "suniye", "lekin", "minute", "kya", "maaf", "hello", "sorry", "stop",
            *_URDU_FLOOR_WORDS,
        }
    ),
    "ur": _URDU_FLOOR_WORDS,
    "fr": frozenset({"non", "attendez", "attends", "arrêtez", "stop", "pardon", "mais", "allô"}),
    "es": frozenset({"no", "espere", "espera", "para", "pare", "perdón", "pero", "oiga"}),
}  # fmt: skip


def backchannel_words(language: str) -> frozenset[str]:
    """The acknowledgement tokens of ``language`` (an ISO code): English's own list, or the
    hums of any language and the language's own words where this module has them."""
    if language == "en":
        return BACKCHANNEL_WORDS
    return ANY_LANGUAGE_BACKCHANNELS | _OWN_BACKCHANNELS.get(language, frozenset())


def floor_words(language: str) -> frozenset[str]:
    """The words a caller of ``language`` cuts in with (empty where this module has none:
    the burst then takes the floor by its length, a sentence)."""
    if language == "en":
        return FLOOR_WORDS
    return _OWN_FLOOR_WORDS.get(language, frozenset())


def own_words(language: str) -> bool:
    """Whether ``language`` has acknowledgements and floor words of its own here."""
    return language == "en" or language in _OWN_BACKCHANNELS


#: Whisper's usual output for non-speech: taken as a noise, never as words.
NON_SPEECH = frozenset({"", "you", "thank you", "thanks", "bye"})
#: A backchannel is short: more tokens than this is a sentence, whatever its words.
MAX_TOKENS = 4

_ANNOTATION = re.compile(r"\[[^\]]*\]|\([^)]*\)|\*[^*]*\*")
#: A word: letters and their combining marks (a Devanagari vowel sign is a mark, not a
#: letter), hyphens inside it kept ("mm-hmm").
_TOKEN = re.compile(r"[^\s-]+(?:-[^\s-]+)*")


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
    plain = _ANNOTATION.sub(" ", unicodedata.normalize("NFC", text.lower()))
    return _unrepeated(_TOKEN.findall(_letters_only(plain.replace("'", ""))))


def _letters_only(text: str) -> str:
    """``text`` with every character but a letter, a combining mark or a hyphen a space (a
    digit, punctuation such as the danda, a symbol)."""
    return "".join(c if c == "-" or unicodedata.category(c)[0] in "LM" else " " for c in text)


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


def classify(text: str, language: str = "en") -> Burst:
    """Judge a burst's transcript, heard in ``language``; see the module docstring."""
    tokens_ = tokens(text)
    if " ".join(tokens_) in NON_SPEECH:
        return Burst.NOISE
    parts = [part for token in tokens_ for part in token.split("-")]
    if any(p in floor_words(language) for p in parts):
        return Burst.FLOOR
    acknowledging = backchannel_words(language)
    if len(tokens_) <= MAX_TOKENS and all(p in acknowledging for p in parts):
        return Burst.BACKCHANNEL
    return Burst.UNCLEAR
