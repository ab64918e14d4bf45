"""Text to speech with Piper, one clip per sentence, each word placed on the clip's samples.

A clip's words are the text's own whitespace-separated tokens, punctuation attached,
exactly as written (``"question."``), so a heard prefix cut at a word's end is a verbatim
prefix of the text. A token espeak does not pronounce on its own (``—``, ``...``) is not a
word. Where a word sits in the audio comes from Piper's per-phoneme sample counts, mapped
onto the text's words by :mod:`sandbox.audio.wordalign`.

Piper facts this relies on (piper-tts 1.8): alignments need a model with an alignment
output (piper's ``add_alignment_output``, which needs the ``onnx`` package) and
``include_alignments=True`` when synthesizing; ``PiperVoice.synthesize`` yields one
``AudioChunk`` per sentence as espeak splits them (``"Dr."`` ends one); each chunk's
``phoneme_alignments`` lists ``^``, the chunk's phonemes, ``$`` with sample counts that sum
exactly to the chunk; every chunk is peak-normalised on its own. A model without alignment
output yields ``None`` there, and the words are then spread evenly over the phonemes
instead.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import platformdirs
from numpy.typing import NDArray

from sandbox.audio.espeak_bridge import install as install_lean_bridge
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


def aligned_model(model: Path, say: Callable[[str], None]) -> Path:
    """``model`` with Piper's alignment output added, written once into the user's cache
    (keyed by the model's size and time): patching it in memory at every load held the ONNX
    graph and its serialised copy at once, ~60 MB at the peak for nothing."""
    stat = model.stat()
    name = f"{model.stem}-{stat.st_size}-{stat.st_mtime_ns}.onnx"
    cached = Path(platformdirs.user_cache_dir("voqalize-sandbox")) / "voices-aligned" / name
    if cached.exists():
        return cached
    import onnx
    from piper.patch_voice_with_alignment import add_alignment_output

    say(f"preparing {model.name} for word timings (once)")
    graph = onnx.load(str(model))
    try:
        add_alignment_output(graph)
    except ValueError:  # already has one
        return model
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(f".{os.getpid()}.partial")  # two first runs at once
    onnx.save(graph, str(partial))
    partial.replace(cached)
    return cached


def _load_lean(model: Path, config: Path, say: Callable[[str], None]) -> PiperVoice:
    """A Piper voice on an ONNX session without onnxruntime's CPU memory arena: the arena
    kept the largest synthesis's buffers for good (measured: peak RSS of both models,
    loaded and used, 597 MB with piper's own loader, 435 MB this way); nor memory
    patterns: every sentence's shapes are new, and with patterns on the heap kept ~90 MB
    more after a dozen replies, at no gain in speed; and its espeak-ng bridge without the
    memory it loses on every phonemization (:mod:`.espeak_bridge`)."""
    import onnxruntime
    from piper import espeakbridge
    from piper.config import PiperConfig
    from piper.phonemize_espeak import ESPEAK_DATA_DIR
    from piper.voice import PiperVoice

    options = onnxruntime.SessionOptions()
    options.enable_cpu_mem_arena = False
    options.enable_mem_pattern = False
    session = onnxruntime.InferenceSession(
        str(aligned_model(model, say)), sess_options=options, providers=["CPUExecutionProvider"]
    )
    install_lean_bridge(espeakbridge)
    settings = PiperConfig.from_dict(json.loads(config.read_text(encoding="utf-8")))
    return PiperVoice(
        config=settings,
        session=session,
        espeak_data_dir=Path(ESPEAK_DATA_DIR),
        download_dir=Path.cwd(),
    )


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
        try:
            piper_voice = _load_lean(entry.model_path, entry.config_path, say)
        except Exception as exc:  # onnx, onnxruntime and json raise many types for a bad file
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
