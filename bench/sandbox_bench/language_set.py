"""The callers and replies of ``sandbox bench --languages``: ``language_lines.toml``, and the
languages the sandbox serves (a recognizer hears it and an installed voice speaks it).

Each language's caller says three questions and three statements, each in two espeak-ng
voices (the language's own voice as ``+m3`` and as ``+f2``: 12 turns); the floor's trials
speak the language's own backchannels and objections over the brain's long reply.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources

from sandbox.audio import multilingual_model
from sandbox.audio.espeak_tts import espeak_language
from sandbox.audio.recognizers import base_languages
from sandbox.audio.voices import voice_languages
from sandbox.errors import UsageError
from sandbox.wire.catalog import LANGUAGE_BY_ISO
from sandbox_bench.caller_set import CallerTurn, CallerVoice
from sandbox_bench.outside_floor import FloorLines

#: The file, beside this module (packaged with it).
LINES_FILE = "language_lines.toml"
#: The caller's two espeak-ng variants over the language's voice, and their rate (wpm).
CALLER_VARIANTS = ("m3", "f2")
CALLER_WPM = 160
#: The rate of the floor's lines, as the English floor's.
FLOOR_WPM = 175
#: English is heard by the default recognizer (tiny.en), the others by Whisper base.
ENGLISH = "en"


@dataclass(frozen=True)
class LanguageLines:
    """One language's table of the file (see its header)."""

    code: str
    questions: tuple[str, ...]
    statements: tuple[str, ...]
    question: str
    backchannels: tuple[str, ...]
    objections: tuple[str, ...]
    short: str
    long: str

    @property
    def espeak(self) -> str:
        """espeak-ng's voice for the language (``de``; ``en-us`` for English)."""
        return espeak_language(LANGUAGE_BY_ISO[self.code])

    def turns(self) -> tuple[CallerTurn, ...]:
        """The caller's turns: every question and statement in each voice, voices in turn."""
        voices = [
            CallerVoice("espeak", f"{self.espeak}+{v}", (CALLER_WPM,) * 2) for v in CALLER_VARIANTS
        ]
        said = [(t, "question") for t in self.questions]
        said += [(t, "statement") for t in self.statements]
        return tuple(
            CallerTurn(text, kind, voice, CALLER_WPM) for voice in voices for text, kind in said
        )

    def floor(self) -> FloorLines:
        """The floor's lines: the question, backchannels and objections in the caller's voices."""
        voices = tuple(f"{self.espeak}+{v}" for v in CALLER_VARIANTS)
        return FloorLines(
            self.question,
            voices[0],
            CALLER_WPM,
            self.backchannels,
            self.objections,
            voices,
            FLOOR_WPM,
        )


def load_lines() -> dict[str, LanguageLines]:
    """Every language of the file, in its order."""
    text = resources.files("sandbox_bench").joinpath(LINES_FILE).read_text("utf-8")
    out: dict[str, LanguageLines] = {}
    for code, table in tomllib.loads(text).items():
        out[code] = LanguageLines(
            code,
            tuple(table["questions"]),
            tuple(table["statements"]),
            table["question"],
            tuple(table["backchannels"]),
            tuple(table["objections"]),
            table["short"],
            table["long"],
        )
    return out


def served() -> tuple[str, ...]:
    """The languages the sandbox serves here and this bench has lines for, in the file's
    order (English first): heard by a recognizer (tiny.en's English, Whisper base's with the
    ``languages`` extra) and spoken by an installed voice."""
    heard = {ENGLISH} | base_languages()
    spoken = {code for code, value in LANGUAGE_BY_ISO.items() if _spoken(value)}
    return tuple(code for code in load_lines() if code in heard and code in spoken)


def _spoken(language: int) -> bool:
    return any(language in languages for languages in voice_languages().values())


def chosen(given: list[str | None], default: tuple[str, ...]) -> tuple[str, ...]:
    """The languages ``--languages`` asked for (comma lists, repeated; None, the flag alone,
    or nothing: ``default``), in the order served, each once; an unknown or unserved code is
    refused in one line (a UsageError: exit 2)."""
    codes = [c.strip() for words in given if words for c in words.split(",") if c.strip()]
    if not codes:
        return default
    serves = served()
    if "all" in codes:
        return serves
    for code in codes:
        if code not in serves:
            why = "is no catalog language" if code not in LANGUAGE_BY_ISO else "is not served here"
            extra = ""
            if not multilingual_model.installed():
                extra = f" (more with {multilingual_model.INSTALL})"
            raise UsageError(f"{code!r} {why}; the bench measures: {', '.join(serves)}{extra}")
    return tuple(code for code in serves if code in codes)


def language_codes(text: str) -> str:
    """``--languages``' value as its ``type=``: each code refused as :func:`chosen` refuses
    it, while the command line is parsed."""
    chosen([text], ())
    return text
