"""The recognizer for each language a call is heard in.

stt.language moves the recognizer: the chosen one (Whisper tiny.en by default, or what
``--stt-model`` names) hears the languages it serves, English above all, exactly as before;
every other language Whisper base serves goes to Whisper base (the ``languages`` extra,
:mod:`sandbox.audio.multilingual_model`), loaded the first time a call asks for one of its
languages, with progress shown, and kept for the rest of the process: a call that moves to
German and back loads it once. Without the extra, the languages it would serve are not
claimed, and a Config asking for one is REJECTED in words that say how to install it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from functools import cache

import numpy as np
import numpy.typing as npt

from sandbox.audio import multilingual_model
from sandbox.audio.recognizer import Recognizer
from sandbox.audio.stt import Transcriber, Transcript
from sandbox.errors import UserError

#: A language token in Whisper's tokenizer ("<|de|>", "<|haw|>"); its other special tokens
#: ("<|transcribe|>", "<|0.00|>") are longer or not letters.
_LANGUAGE_TOKEN = re.compile(r'"<\|([a-z]{2,3})\|>"')


class Recognizers:
    """A :class:`~sandbox.audio.recognizer.Recognizer` that hands each clip to the one for
    its language (see the module docstring). ``extra``: whether Whisper base may be used
    (by default: whether the ``languages`` extra is installed)."""

    def __init__(
        self,
        first: Recognizer,
        progress: Callable[[str], None] | None = None,
        *,
        extra: bool | None = None,
    ) -> None:
        self.first = first
        self._progress = progress
        self._extra = multilingual_model.installed() if extra is None else extra
        self._base: Recognizer | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        """The recognizers loaded so far ("Whisper tiny.en + Whisper base (multilingual)")."""
        loaded = [self.first] if self._base is None else [self.first, self._base]
        return " + ".join(r.name for r in loaded)

    @property
    def languages(self) -> frozenset[str]:
        """Every language a clip may be transcribed in: the first recognizer's, and Whisper
        base's when the extra is installed (known without loading it)."""
        more = base_languages() if self._extra else frozenset()
        return self.first.languages | more

    @property
    def missing(self) -> str:
        """What a refusal adds when the extra would hear more: how to install it."""
        if self._extra:
            return ""
        return f"{multilingual_model.NAME} hears most of the others: {multilingual_model.INSTALL}"

    def for_language(self, language: str) -> Recognizer:
        """The recognizer ``language`` is heard with, Whisper base loaded on first use."""
        if language in self.first.languages:
            return self.first
        if not self._extra or language not in base_languages():
            served = ", ".join(sorted(self.languages))
            raise UserError(f"no recognizer here hears {language!r}; they hear: {served}")
        with self._lock:
            if self._base is None:
                folder = multilingual_model.model_folder(self._progress)
                self._base = Transcriber.load(
                    str(folder), self._progress, name=multilingual_model.NAME
                )
            return self._base

    def transcribe(
        self,
        pcm16k: npt.NDArray[np.float32],
        *,
        language: str = "en",
        word_timestamps: bool = False,
        brief: bool = False,
    ) -> Transcript:
        """One clip, by the recognizer for ``language`` (:meth:`for_language`)."""
        recognizer = self.for_language(language)
        return recognizer.transcribe(
            pcm16k, language=language, word_timestamps=word_timestamps, brief=brief
        )


@cache
def base_languages() -> frozenset[str]:
    """The languages Whisper base hears, read from its tokenizer (its language tokens), so
    they are known before the model is loaded; empty without the extra."""
    if not multilingual_model.installed():
        return frozenset()
    text = (multilingual_model.data_folder() / "tokenizer.json").read_text(encoding="utf-8")
    return frozenset(_LANGUAGE_TOKEN.findall(text))
