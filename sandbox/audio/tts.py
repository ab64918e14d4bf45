"""Text to speech with Piper, one clip per sentence, each word placed on the clip's samples.

A clip's words are the text's own whitespace-separated tokens, punctuation attached,
exactly as written (``"question."``), so a heard prefix cut at a word's end is a verbatim
prefix of the text. A token espeak does not pronounce on its own (``—``, ``...``) is not a
word. Where a word sits in the audio comes from Piper's per-phoneme sample counts, mapped
onto the text's words by :mod:`sandbox.audio.wordalign`.

Piper facts this relies on (piper-tts 1.8): alignments need a model with an alignment
output (piper's ``add_alignment_output``, which needs the ``onnx`` package); espeak splits
text into sentences (``"Dr."`` ends one), and each sentence is synthesized here from the
very phonemes its words were aligned on (``phonemes_to_ids``, ``phoneme_ids_to_audio``),
peak-normalised on its own as Piper does; the model's per-id sample counts, summed per
symbol (``^``, each phoneme with its pad, ``$``), place the phonemes on the audio. A model
without alignment output gives none, and the words are then spread evenly over the
phonemes instead.

No text makes :meth:`Synthesizer.synthesize` raise: what cannot be said as written is
said normalized, or not said at all from there on, and reported as a :class:`Trouble`.
"""

from __future__ import annotations

import json
import logging
import os
import re
import unicodedata
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Self

import numpy as np
import platformdirs
from numpy.typing import NDArray

from sandbox.audio.espeak_bridge import install as install_lean_bridge
from sandbox.audio.voices import VoiceEntry, catalog, default_voice
from sandbox.audio.wordalign import Token, align, is_sound, split_words
from sandbox.errors import UserError

if TYPE_CHECKING:  # piper pulls in onnxruntime: imported only when a voice is loaded
    from piper import PiperVoice

#: What the first synthesis after loading says: it costs ~500 ms more than later ones.
WARM_UP_TEXT = "Warming up."
#: Piper's sentence markers around each sentence's phonemes, and the pad after each symbol.
_BOS, _EOS, _PAD = "^", "$", "_"
#: A token longer than this is no word a caller could follow (a pasted key, a blob): the
#: text before it is said and the rest reported unsaid, not spelled out for minutes.
MAX_WORD_CHARS = 200
#: Text is synthesized in pieces of at most about this many characters, cut between words:
#: the alignment's cost and Piper's memory grow with the piece, and a run-on reply with no
#: sentence end must not hold the synthesis thread (and every later unit) for minutes.
MAX_PIECE_CHARS = 400
#: Combining marks: accents :func:`normalized` drops.
_MARKS = frozenset({"Mn", "Mc", "Me"})
_PUNCTUATION_RUN = re.compile(r"([^\w\s])\1+")

log = logging.getLogger(__name__)


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
    to :meth:`Synthesizer.synthesize` concatenate back to that text exactly, unless part
    of it had nothing to say or was reported unsaid.
    """

    samples: NDArray[np.int16]
    sample_rate: int
    words: tuple[WordSpan, ...]
    text: str

    @property
    def duration(self) -> float:
        """Length in seconds."""
        return len(self.samples) / self.sample_rate


@dataclass(frozen=True)
class Trouble:
    """Text the synthesizer could not say as written, and what came of it.

    ``repaired``: it was said once normalized (:func:`normalized`), its words still named
    as written. Otherwise it was not said, nor anything after it in the text given to
    :meth:`Synthesizer.synthesize`, so what was said stays a prefix of that text.
    """

    text: str  # as written: the repaired text, or the unsaid rest
    reason: str
    repaired: bool

    def describe(self) -> str:
        """One line in words."""
        done = "said once normalized" if self.repaired else "not said, nor what follows"
        return f"{self.text[:60]!r} could not be said as written ({self.reason}): {done}"


TroubleSink = Callable[[Trouble], None]


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
    # Its two threads sleep when out of work rather than spin: on two cores shared with the
    # UI, the audio and Whisper, spinning threads held each other up (measured beside a busy
    # Python thread: "Sure," 66 -> 45 ms, a long sentence 456 -> 335 ms; alone, the same).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
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

    @property
    def name(self) -> str:
        """The catalog name, e.g. ``joe``."""
        return self.voice.name

    @property
    def languages(self) -> tuple[int, ...]:
        """The languages the catalog says this voice speaks."""
        return self.voice.languages

    @classmethod
    def load(
        cls, voice: VoiceEntry | None = None, progress: Callable[[str], None] | None = None
    ) -> Self:
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

    def phonemize(self, text: str) -> list[list[str]]:
        """espeak's phonemes for ``text``, one list per sentence, read from a clean slate.

        espeak-ng keeps the last full stop of a text ending in two and reads it at the start
        of the next one (``"Well.."`` then ``"let"`` comes out "dot let"), so whatever an
        earlier call left behind is read first, into nothing.
        """
        self._piper.phonemize("")
        return self._piper.phonemize(text)

    def synthesize(
        self, text: str, trouble: TroubleSink | None = None, *, language: int | None = None
    ) -> Iterator[Clip]:
        """One clip per sentence, each yielded as soon as it is synthesized. Never raises.

        ``language`` is not read: a Piper model speaks the one language it was trained on,
        and a Config asking this voice for another is refused before any text arrives.

        Text that cannot be said as written is normalized (:func:`normalized`) and tried
        again; text that cannot be said even so is not said, nor anything after it, so the
        clips' words stay a prefix of the text. ``trouble`` hears of both (by default they
        are logged). No clip and no trouble means the text has nothing to say (``"…"``).
        """
        report = trouble if trouble is not None else log_trouble
        for start, end in pieces(text):
            piece = text[start:end]
            if not piece.strip():
                continue
            too_long = next((t for t in split_words(piece) if len(t.text) > MAX_WORD_CHARS), None)
            if too_long is not None:
                before, rest = piece[: too_long.start], text[start + too_long.start :]
                if (yield from self._say(before, rest, report)):
                    why = f"a word of {len(too_long.text)} characters is too long to say"
                    report(Trouble(rest, why, repaired=False))
                return
            if not (yield from self._say(piece, text[end:], report)):
                return

    def _say(self, text: str, after: str, report: TroubleSink) -> Generator[Clip, None, bool]:
        """Say ``text`` as written, else its unsaid rest normalized; False: some was unsaid,
        and so is ``after``, the text that follows it."""
        done = 0  # characters of text whose clips have been yielded
        try:
            for clip in self._clips(text, None):
                yield clip
                done += len(clip.text)
            return True
        except Exception as exc:  # espeak, onnxruntime, the alignment: any may fail on text
            why = f"{type(exc).__name__}: {exc}"
        rest = text[done:]
        said = [normalized(t.text) for t in split_words(rest)]
        try:
            for clip in self._clips(rest, said):
                yield clip
                done += len(clip.text)
        except Exception as exc:
            why += f"; normalized: {type(exc).__name__}: {exc}"
            report(Trouble(text[done:] + after, why, repaired=False))
            return False
        report(Trouble(rest, why, repaired=True))
        return True

    def _clips(self, text: str, said: Sequence[str] | None) -> Iterator[Clip]:
        """The clips of ``text``; ``said``: what to say for each of its words instead (its
        repair), the clips still naming the words as written."""
        tokens = split_words(text)
        forms = [t.text for t in tokens] if said is None else said
        refs = [[p for s in self.phonemize(form) for p in s] for form in forms]
        words = [(t, ref) for t, ref in zip(tokens, refs, strict=True) if any(map(is_sound, ref))]
        if not words:
            return  # nothing to say ("—", "..."): espeak would only voice its punctuation
        sentences = [s for s in self.phonemize(text if said is None else " ".join(said)) if s]
        spoken = [p for s in sentences for p in (_BOS, *s, _EOS)]
        ranges = align([ref for _, ref in words], spoken)
        plan = _plan_clips(text, [t for t, _ in words], ranges, [len(s) + 2 for s in sentences])
        for (clip_text, clip_words), phonemes in zip(plan, sentences, strict=True):
            samples, durations = self._audio(phonemes)
            edges = [min(e, len(samples)) for e in (0, *accumulate(durations))]
            yield Clip(
                samples=samples,
                sample_rate=self.sample_rate,
                words=tuple(WordSpan(w.text, edges[a], edges[b]) for w, (a, b) in clip_words),
                text=clip_text,
            )

    def _audio(self, phonemes: Sequence[str]) -> tuple[NDArray[np.int16], list[int]]:
        """Piper's audio for exactly these phonemes (peak-normalised, as Piper's own
        ``synthesize`` does), and the samples of each symbol: ``^``, the phonemes, ``$``.

        Synthesized from the phonemes the words were aligned on, never from the text again:
        espeak need not phonemize one text the same way twice.
        """
        piper = self._piper
        id_map = piper.config.phoneme_id_map
        # Piper drops a phoneme its voice lacks (an "é" left by espeak) with a warning each
        # time: dropped here first, quietly, the same way.
        ids = piper.phonemes_to_ids([p for p in phonemes if p in id_map])
        result = piper.phoneme_ids_to_audio(ids, include_alignments=True)
        raw, per_id = result if isinstance(result, tuple) else (result, None)
        audio = np.atleast_1d(raw)
        peak = float(np.max(np.abs(audio))) if audio.size else 0.0
        scaled = audio / peak if peak >= 1e-8 else np.zeros_like(audio)
        samples = np.clip(scaled * 32767.0, -32767, 32767).astype(np.int16)
        pad = len(id_map.get(_PAD, []))
        # How many ids each symbol became (none for a dropped one).
        counts = [
            len(id_map.get(_BOS, [])) + pad,
            *(len(id_map[p]) + pad if p in id_map else 0 for p in phonemes),
            len(id_map.get(_EOS, [])),
        ]
        if per_id is not None and len(per_id) == len(ids) == sum(counts):
            edges = [0, *accumulate(counts)]
            durations = [int(per_id[a:b].sum()) for a, b in pairwise(edges)]
        else:
            durations = _even(len(counts), len(samples))
        return samples, durations


def log_trouble(trouble: Trouble) -> None:
    """Where trouble goes when nobody asked to hear of it: the log."""
    log.warning("%s", trouble.describe())


def normalized(word: str) -> str:
    """A word made plainer for espeak: compatibility forms folded (NFKC), accents, control
    and format characters (bidi marks, zero-width joiners) dropped, and a run of one
    punctuation mark cut to one (``"Well.."`` → ``"Well."``)."""
    plain = "".join(
        c
        for c in unicodedata.normalize("NFKD", word)
        if unicodedata.category(c)[0] != "C" and unicodedata.category(c) not in _MARKS
    )
    return _PUNCTUATION_RUN.sub(r"\1", unicodedata.normalize("NFKC", plain))


def pieces(text: str) -> list[tuple[int, int]]:
    """``text`` cut between words into spans of at most about MAX_PIECE_CHARS (a longer
    word is a span of its own); the spans run together make the text."""
    bounds = [0]
    for token in split_words(text):
        if token.end - bounds[-1] > MAX_PIECE_CHARS and token.start > bounds[-1]:
            bounds.append(token.start)
    return list(pairwise([*bounds, len(text)]))


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


def _even(symbols: int, samples: int) -> list[int]:
    """Samples per symbol spread evenly: a model without alignment output."""
    share, extra = divmod(samples, symbols)
    return [share + (1 if k < extra else 0) for k in range(symbols)]
