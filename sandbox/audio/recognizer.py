"""The recognizer seam: what the audio engine asks of a speech recognizer, and how
``--stt-model`` names one.

Whisper (:class:`~sandbox.audio.stt.Transcriber`) is one recognizer; your own is another, as
a LiveKit or Pipecat STT plugin is: a class with a ``name``, the ``languages`` it hears (ISO
codes, as the catalog spells them) and a ``transcribe`` that turns one clip of 16 kHz mono
float32 audio into a :class:`~sandbox.audio.stt.Transcript`. ``--stt-model`` takes either a
CTranslate2 Whisper folder or ``module:Class``: the class is imported and built with no
arguments (read your own settings from the environment or a file), once per call set-up.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from sandbox.audio.stt import Transcriber, Transcript
from sandbox.errors import UserError


@runtime_checkable
class Recognizer(Protocol):
    """A speech recognizer the audio engine listens with (one clip at a time)."""

    @property
    def name(self) -> str:
        """Said in progress lines and the record ("Whisper tiny.en")."""
        ...

    @property
    def languages(self) -> frozenset[str]:
        """The ISO 639 codes it transcribes; a Config asking for another is REJECTED."""
        ...

    def transcribe(
        self,
        pcm16k: npt.NDArray[np.float32],
        *,
        language: str = "en",
        word_timestamps: bool = False,
        brief: bool = False,
    ) -> Transcript:
        """The text of one clip (float32 mono 16 kHz) in ``language``; an empty text for
        silence or noise. ``word_timestamps``: fill ``words`` (the bench's judge asks);
        ``brief``: a burst over the bot, to be classified: its first few words are enough."""
        ...


def load_recognizer(spec: str | None, progress: Callable[[str], None] | None = None) -> Recognizer:
    """The recognizer ``--stt-model`` names: None for the bundled Whisper tiny.en, a
    CTranslate2 Whisper folder, or ``module:Class`` implementing :class:`Recognizer`."""
    if spec is None or _is_folder_spec(spec):
        return Transcriber.load(spec, progress=progress)
    module_name, _, class_name = spec.partition(":")
    if not module_name or not class_name:
        raise UserError(f"--stt-model {spec!r}: expected a model folder or module:Class")
    try:
        found = getattr(importlib.import_module(module_name), class_name)
    except Exception as exc:  # an author's module may fail in any way while importing
        raise UserError(f"--stt-model {spec!r} does not import: {_one_line(exc)}") from None
    if progress is not None:
        progress(f"Loading speech recognizer ({spec})…")
    try:
        recognizer = found()
    except Exception as exc:  # their constructor: said in a line, never a traceback
        raise UserError(f"--stt-model {spec!r} could not be built: {_one_line(exc)}") from None
    if not isinstance(recognizer, Recognizer) or not _well_typed(recognizer):
        raise UserError(
            f"--stt-model {spec!r} is not a recognizer: it needs a name (str), languages "
            "(a frozenset of ISO codes) and transcribe(pcm16k, *, language, word_timestamps, "
            "brief) returning a Transcript; see docs/languages.md"
        )
    return recognizer


def _is_folder_spec(spec: str) -> bool:
    """A path, not ``module:Class``: a folder that exists, or anything with a slash (a
    missing folder is then said as such by :meth:`Transcriber.load`)."""
    return "/" in spec or "\\" in spec or ":" not in spec or Path(spec).expanduser().is_dir()


def _well_typed(recognizer: Recognizer) -> bool:
    languages = recognizer.languages
    return (
        isinstance(recognizer.name, str)
        and isinstance(languages, frozenset)
        and all(isinstance(code, str) for code in languages)
    )


def _one_line(exc: BaseException) -> str:
    """An author's exception as one line of data: its type and message, control characters
    escaped (the message is theirs, never terminal markup)."""
    text = " ".join(str(exc).split())
    shown = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)
    return f"{type(exc).__name__}: {shown}" if shown else type(exc).__name__
