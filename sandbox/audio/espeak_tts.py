"""Text to speech with espeak-ng, through its C library, each word on espeak's own samples.

espeak-ng is a system package (Debian: ``espeak-ng``, which brings ``libespeak-ng1``), not a
Python one: the library is opened with ctypes, synthesizing synchronously
(``AUDIO_OUTPUT_SYNCHRONOUS``) into a callback that takes the audio and the word events,
whose sample positions place each word (:mod:`sandbox.audio.espeak_words`): no estimate
stands between a cut and the words heard.

Piper links its own copy of espeak-ng into ``piper.espeakbridge`` (for phonemes), with its
own data and state; this is the system's library, a separate copy that Python's private
loading of extension modules keeps apart from Piper's (tests/test_espeak_tts.py speaks with
Piper, espeak, then Piper again). The library is process-wide state, so one synthesis at a
time holds it.

Text is passed as plain UTF-8 characters: no SSML, no ``[[phonemes]]``, so what a brain sends
is said, never interpreted.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Iterator
from typing import Self

import numpy as np
from numpy.typing import NDArray

from sandbox.audio.espeak_words import EventKind, SynthEvent, word_spans
from sandbox.audio.tts import Clip, Trouble, TroubleSink, log_trouble, pieces
from sandbox.audio.voices import ESPEAK_MISSING, ESPEAK_VARIANTS, VoiceEntry
from sandbox.errors import UserError
from sandbox.wire.catalog import ISO_BY_LANGUAGE, language_name

LIBRARY = "libespeak-ng.so.1"
# speak_lib.h
_AUDIO_OUTPUT_SYNCHRONOUS = 2
_INITIALIZE_DONT_EXIT = 0x8000  # report a missing data folder rather than exit the process
_POS_CHARACTER = 1
_CHARS_UTF8 = 1
_EVENT_LIST_TERMINATED = 0
_RATE = 1  # espeakRATE, in words per minute
#: espeak-ng's own default rate, which the catalog voices speak at.
DEFAULT_WPM = 175


class _Event(ctypes.Structure):
    """``espeak_EVENT``; the trailing union is a pointer's width."""

    _fields_ = (
        ("type", ctypes.c_int),
        ("unique_identifier", ctypes.c_uint),
        ("text_position", ctypes.c_int),
        ("length", ctypes.c_int),
        ("audio_position", ctypes.c_int),
        ("sample", ctypes.c_int),
        ("user_data", ctypes.c_void_p),
        ("id", ctypes.c_void_p),
    )


_Callback = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(_Event)
)
_KINDS = {int(kind): kind for kind in EventKind}


class EspeakError(Exception):
    """espeak-ng refused a voice or a text (its ``espeak_ERROR`` code)."""


class EspeakLibrary:
    """libespeak-ng, initialized once for synchronous synthesis."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        """Initialize ``lib`` and route its audio here; UserError if it cannot start."""
        lib.espeak_Initialize.restype = ctypes.c_int
        lib.espeak_Initialize.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int)
        lib.espeak_SetVoiceByName.argtypes = (ctypes.c_char_p,)
        lib.espeak_SetParameter.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.c_int)
        lib.espeak_Synth.argtypes = (
            ctypes.c_char_p,
            ctypes.c_size_t,
            ctypes.c_uint,
            ctypes.c_int,
            ctypes.c_uint,
            ctypes.c_uint,
            ctypes.c_void_p,
            ctypes.c_void_p,
        )
        rate = lib.espeak_Initialize(_AUDIO_OUTPUT_SYNCHRONOUS, 0, None, _INITIALIZE_DONT_EXIT)
        if rate <= 0:
            raise UserError(
                f"espeak-ng could not start (its data folder is missing?); {ESPEAK_MISSING}"
            )
        self.sample_rate: int = rate
        self._lib = lib
        self._lock = threading.Lock()
        self._voice: str | None = None
        self._chunks: list[NDArray[np.int16]] = []
        self._events: list[SynthEvent] = []
        self._callback = _Callback(self._take)  # kept: espeak holds only the pointer
        lib.espeak_SetSynthCallback(self._callback)

    def _take(
        self, wav: ctypes._Pointer[ctypes.c_short], count: int, events: ctypes._Pointer[_Event]
    ) -> int:
        if count > 0 and wav:
            self._chunks.append(np.ctypeslib.as_array(wav, shape=(count,)).astype(np.int16))
        index = 0
        while events[index].type != _EVENT_LIST_TERMINATED:
            event = events[index]
            kind = _KINDS.get(event.type)
            if kind is not None:
                self._events.append(SynthEvent(kind, event.text_position, event.sample))
            index += 1
        return 0  # go on

    def speaks(self, voice: str) -> bool:
        """Whether espeak-ng has ``voice`` (``de``, ``en-us+f2``)."""
        with self._lock:
            return self._set_voice(voice) == 0

    def synthesize(
        self, voice: str, text: str, wpm: int = DEFAULT_WPM
    ) -> tuple[NDArray[np.int16], list[SynthEvent]]:
        """``text`` said by espeak-ng's ``voice`` at ``wpm`` words a minute: the samples and
        the events, in order."""
        with self._lock:
            if code := self._set_voice(voice):
                raise EspeakError(f"espeak-ng has no voice {voice!r} (error {code})")
            # Set at every synthesis: the library keeps the last caller's rate.
            if code := self._lib.espeak_SetParameter(_RATE, wpm, 0):
                raise EspeakError(f"espeak-ng refused the rate {wpm} (error {code})")
            self._chunks, self._events = [], []
            data = text.encode("utf-8")
            code = self._lib.espeak_Synth(
                data, len(data) + 1, 0, _POS_CHARACTER, 0, _CHARS_UTF8, None, None
            )
            if code:
                raise EspeakError(f"espeak-ng could not say it (error {code})")
            samples = np.concatenate(self._chunks) if self._chunks else np.zeros(0, np.int16)
            return samples, self._events

    def _set_voice(self, voice: str) -> int:
        if voice == self._voice:
            return 0
        self._voice = None
        code = int(self._lib.espeak_SetVoiceByName(voice.encode()))
        if code == 0:
            self._voice = voice
        return code


_started: list[EspeakLibrary] = []
_starting = threading.Lock()


def library() -> EspeakLibrary:
    """The process's espeak-ng, started on first use (once: two starts would each take the
    one synthesis callback); UserError saying how to install it."""
    with _starting:
        if not _started:
            try:
                lib = ctypes.CDLL(LIBRARY)
            except OSError:
                raise UserError(f"cannot open {LIBRARY}: {ESPEAK_MISSING}") from None
            _started.append(EspeakLibrary(lib))
        return _started[0]


class EspeakVoice:
    """An espeak-ng voice of the catalog: one variant (none: each language's own voice; or
    ``f2``) over every catalog language espeak-ng speaks. Safe from any thread (one
    synthesis at a time)."""

    def __init__(self, entry: VoiceEntry, variant: str, engine: EspeakLibrary) -> None:
        """Speak as ``entry`` with espeak's ``variant``; :meth:`load` is the usual way in."""
        self.entry = entry
        self._variant = variant
        self._engine = engine

    @classmethod
    def load(cls, entry: VoiceEntry, progress: Callable[[str], None] | None = None) -> Self:
        """The catalog's espeak voice ``entry``; UserError when espeak-ng is not installed."""
        variant = ESPEAK_VARIANTS.get(entry.voice)
        if variant is None:
            raise UserError(f"voice {entry.name} is not an espeak-ng voice")
        if progress is not None:
            progress(f"loading voice {entry.name}")
        return cls(entry, variant, library())

    @property
    def name(self) -> str:
        """The catalog name, e.g. ``espeak_female``."""
        return self.entry.name

    @property
    def sample_rate(self) -> int:
        """espeak-ng's own rate (22050 Hz)."""
        return self._engine.sample_rate

    @property
    def languages(self) -> tuple[int, ...]:
        """The catalog languages it speaks."""
        return self.entry.languages

    def espeak_voice(self, language: int) -> str:
        """espeak-ng's name for this voice in ``language``, e.g. ``de+f2``."""
        base = espeak_language(language)
        return f"{base}+{self._variant}" if self._variant else base

    def synthesize(
        self, text: str, trouble: TroubleSink | None = None, *, language: int | None = None
    ) -> Iterator[Clip]:
        """One clip per piece of text (at most about MAX_PIECE_CHARS, cut between words),
        its words placed by espeak's word events. Never raises on text: what espeak refuses
        is reported to ``trouble`` as unsaid, with everything after it."""
        report = trouble if trouble is not None else log_trouble
        lang = self.languages[0] if language is None else language
        if lang not in self.languages:
            why = f"voice {self.name} does not speak {language_name(lang)}"
            report(Trouble(text, why, repaired=False))
            return
        for start, end in pieces(text):
            piece = text[start:end]
            stop = piece.find("\x00")  # C text ends at NUL: what follows is never said
            if stop >= 0:
                piece, end = piece[:stop], start + stop
            if piece.strip():
                try:
                    samples, events = self._engine.synthesize(self.espeak_voice(lang), piece)
                except EspeakError as exc:
                    report(Trouble(text[start:], str(exc), repaired=False))
                    return
                words = word_spans(piece, events, len(samples))
                if words:
                    yield Clip(samples, self.sample_rate, words, piece)
            if stop >= 0:
                report(Trouble(text[end:], "a NUL character cannot be said", repaired=False))
                return


def espeak_language(language: int) -> str:
    """espeak-ng's voice for a catalog language: its code, but for the regional defaults
    chosen here (``en`` is US English, as the Piper voices are)."""
    code = ISO_BY_LANGUAGE[language]
    return _REGIONAL.get(code, code)


_REGIONAL = {"en": "en-us"}
