"""Text to speech with Piper, one clip per sentence, each word placed on the clip's samples.

A clip's words are the text's own whitespace-separated tokens, punctuation attached,
exactly as written (``"question."``), so a heard prefix cut at a word's end is a verbatim
prefix of the text. A token espeak does not pronounce on its own (``—``, ``...``) is not a
word. Where a word sits in the audio comes from Piper's per-phoneme sample counts, mapped
onto the text's words by :mod:`sandbox.audio.wordalign`.

Piper facts this relies on (piper-tts 1.8): alignments need ``include_alignments=True``
both when loading (it patches the ONNX model in memory, which needs the ``onnx`` package)
and when synthesizing; ``PiperVoice.synthesize`` yields one ``AudioChunk`` per sentence as
espeak splits them (``"Dr."`` ends one); each chunk's ``phoneme_alignments`` lists
``^``, the chunk's phonemes, ``$`` with sample counts that sum exactly to the chunk; every
chunk is peak-normalised on its own. A model without alignment output yields ``None``
there, and the words are then spread evenly over the phonemes instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from sandbox.audio.voices import VoiceEntry, catalog, default_voice
from sandbox.audio.wordalign import Token, align, is_sound, split_words
from sandbox.errors import UserError

if TYPE_CHECKING:  # piper pulls in onnxruntime: imported only when a voice is loaded
    from piper import PiperVoice
    from piper.voice import PhonemeAlignment

#: What the first synthesis after loading says: it costs ~500 ms more than later ones.
WARM_UP_TEXT = "Warming up."
#: Piper's sentence markers around each chunk's phonemes in its alignments.
_BOS, _EOS = "^", "$"


@dataclass(frozen=True)
class WordSpan:
    """One word of a clip: the word exactly as in the text, and its samples ``[start, end)``."""

    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Clip:
    """One synthesized sentence: int16 mono samples and the words spoken in them, in order.

    ``text`` is the slice of the synthesized text this clip speaks; the clips of one call
    to :meth:`Synthesizer.synthesize` concatenate back to that text exactly.
    """

    samples: NDArray[np.int16]
    sample_rate: int
    words: tuple[WordSpan, ...]
    text: str

    @property
    def duration(self) -> float:
        """Length in seconds."""
        return len(self.samples) / self.sample_rate


class Synthesizer:
    """A loaded, warmed-up Piper voice. Use it from one thread at a time."""

    def __init__(self, voice: VoiceEntry, piper_voice: PiperVoice) -> None:
        """Wrap an already loaded ``PiperVoice``; :meth:`load` is the usual way in."""
        self.voice = voice
        self._piper = piper_voice
        self.sample_rate: int = piper_voice.config.sample_rate

    @classmethod
    def load(
        cls, voice: VoiceEntry | None = None, progress: Callable[[str], None] | None = None
    ) -> Synthesizer:
        """Load a voice (default: the catalog's default voice) and warm it up (~2 s)."""
        say = progress or (lambda _message: None)
        entry = voice if voice is not None else catalog()[default_voice()]
        if not entry.installed or entry.model_path is None or entry.config_path is None:
            raise UserError(
                f"voice {entry.name} is not installed: put its Piper model (.onnx and "
                f".onnx.json) into a voices folder; see voices/README.md"
            )
        say(f"loading voice {entry.name}")
        from piper import PiperVoice

        try:
            piper_voice = PiperVoice.load(
                entry.model_path, entry.config_path, include_alignments=True
            )
        except Exception as exc:  # onnxruntime and json raise many types for a bad file
            raise UserError(
                f"cannot load voice {entry.name} from {entry.model_path}: {exc}"
            ) from None
        synthesizer = cls(entry, piper_voice)
        say(f"warming up voice {entry.name}")
        for _clip in synthesizer.synthesize(WARM_UP_TEXT):
            pass
        return synthesizer

    def synthesize(self, text: str) -> Iterator[Clip]:
        """One clip per sentence, each yielded as soon as it is synthesized."""
        piper = self._piper
        tokens = [(t, _phonemes(piper, t.text)) for t in split_words(text)]
        words = [(t, ref) for t, ref in tokens if any(map(is_sound, ref))]  # "—" is no word
        sentences = [s for s in piper.phonemize(text) if s]
        spoken = [p for s in sentences for p in (_BOS, *s, _EOS)]
        ranges = align([ref for _, ref in words], spoken)
        plan = _plan_clips(text, [t for t, _ in words], ranges, [len(s) + 2 for s in sentences])
        chunks = piper.synthesize(text, include_alignments=True)
        for (clip_text, clip_words), phonemes, chunk in zip(plan, sentences, chunks, strict=True):
            if chunk.phonemes != phonemes:
                raise RuntimeError("espeak phonemized the same text two ways")
            samples: NDArray[np.int16] = chunk.audio_int16_array
            durations = _durations(chunk.phoneme_alignments, len(phonemes) + 2, len(samples))
            edges = [min(e, len(samples)) for e in (0, *accumulate(durations))]
            yield Clip(
                samples=samples,
                sample_rate=self.sample_rate,
                words=tuple(WordSpan(w.text, edges[a], edges[b]) for w, (a, b) in clip_words),
                text=clip_text,
            )


def _phonemes(piper: PiperVoice, text: str) -> list[str]:
    """espeak's phonemes for a piece of text, all sentences run together."""
    return [p for sentence in piper.phonemize(text) for p in sentence]


_Planned = tuple[str, list[tuple[Token, tuple[int, int]]]]


def _plan_clips(
    text: str, words: Sequence[Token], ranges: Sequence[tuple[int, int]], lengths: Sequence[int]
) -> list[_Planned]:
    """Per sentence: its slice of the text, and its words with ranges local to the sentence.

    ``ranges`` index the sentences' symbols run together; ``lengths`` are the sentences'
    symbol counts. A word belongs to the sentence its range starts in (clamped to it).
    """
    if not lengths:
        return []
    offsets = [0, *accumulate(lengths)]
    planned: list[list[tuple[Token, tuple[int, int]]]] = [[] for _ in lengths]
    sentence = 0
    for word, (start, stop) in zip(words, ranges, strict=True):
        while sentence + 1 < len(lengths) and start >= offsets[sentence + 1]:
            sentence += 1
        base, end = offsets[sentence], offsets[sentence + 1]
        local_start = min(start, end) - base
        planned[sentence].append((word, (local_start, max(local_start, min(stop, end) - base))))
    # A sentence's text runs from its first word to the next worded sentence's first word
    # (the first from 0, the last to the end); a sentence without words gets "".
    begins = [0] * len(planned)
    following = len(text)
    for index in reversed(range(1, len(planned))):
        clip_words = planned[index]
        begins[index] = clip_words[0][0].start if clip_words else following
        following = begins[index]
    ends = [*begins[1:], len(text)]
    return [(text[b:e], ws) for b, e, ws in zip(begins, ends, planned, strict=True)]


def _durations(
    alignments: Sequence[PhonemeAlignment] | None, symbols: int, samples: int
) -> list[int]:
    """Samples per symbol (``^``, phonemes, ``$``): Piper's, or an even spread without them."""
    if alignments is not None and len(alignments) == symbols:
        return [int(a.num_samples) for a in alignments]
    share, extra = divmod(samples, symbols)
    return [share + (1 if k < extra else 0) for k in range(symbols)]
