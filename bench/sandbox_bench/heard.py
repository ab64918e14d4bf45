"""Heard text at random cuts against what the speaker really emitted.

The real playout clock with a fake clock and a memory sink (no real-time waiting) plays real
Piper clips of a typical reply; at a random moment the unit is cut. Each moment is cut
twice: straight, and through a pause first, as a barge-in does (pause, then decide: playout
fades out and holds for half a second, then is cut), so the pause's own effect is seen apart
from the judge's noise. *Heard* is what the clock
reported word by word (``on_word``: a word counts once its first sample is released). *Emitted*
is what Whisper transcribes from the sink's samples: the audio that really went out.

Three judges of "emitted", all reported:

* **count** (the target's judge): the number of words in Whisper's transcript. Whisper's
  language model often completes a word from its first syllable, so it tends to "hear" one
  word more than the clock reports — the wire's "the user may have heard one word more".
* **midpoint**: only Whisper's words whose midpoint (Whisper's own word timestamps) lies in
  the emitted audio — the clock's rule on an independent alignment. Whisper stretches the
  last word into the silence after the cut, so this judge leans one word short.
* **aligned**: the wire's own rule (a word counts once its first sample is released) applied
  to an alignment of the *uncut* reply made without Piper's timings and without Whisper:
  espeak-ng's word starts warped onto the audio (:mod:`sandbox_bench.espeak_align`). The
  emitted samples are those the sink got before the cut (or the pause) that are the reply's
  own audio, sample for sample. Whisper's guesses on a clipped word play no part, so a cut in
  the first milliseconds of a word, which no listener or recognizer could name, is judged by
  where the word starts, as the rule says. It is not yet the clean judge it was meant to be:
  its word starts fall ~45 ms before Piper's (median, every run), so over the whole length of
  the replies it agrees with the clock at ~82% of moments, and when it disagrees it says the
  next word had begun (+1). 60 random cuts (30 moments) scatter widely around that: 67-97%
  on four runs.

Words are compared as lowercase runs of letters, digits and apostrophes; the replies hold
no numbers, which Whisper would write as digits or words at will.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from sandbox.audio.playout import PlayoutClock
from sandbox.audio.resample import as_float32, resample
from sandbox.audio.sinks import MemorySink
from sandbox.audio.stt import SAMPLE_RATE
from sandbox.audio.tts import Clip
from sandbox_bench.espeak_align import word_onsets
from sandbox_bench.figures import Progress
from sandbox_bench.models import Models
from sandbox_bench.texts import BOT_REPLIES

#: Silence released after the cut, so Whisper hears the audio end as the listener would.
TAIL_S = 0.3
#: How long a paused cut holds before the cut (a barge-in's decision time).
PAUSED_S = 0.5
#: Mismatching cuts kept for the report.
EXAMPLES = 5

#: Which judge of "emitted": Whisper's word count, Whisper's words by midpoint, or the
#: rule on the independent alignment.
Judge = Literal["count", "midpoint", "aligned"]


def words(text: str) -> list[str]:
    """Lowercase words without punctuation: "Two." and "two" compare equal."""
    return re.findall(r"[a-z0-9']+", text.lower().replace("-", " "))


@dataclass(frozen=True)
class Cut:
    """One cut: where, what the clock said was heard, what Whisper heard in the audio."""

    reply: str
    paused: bool  # the cut went through a pause
    emitted_s: float  # audio released before the cut
    heard: str
    transcript: str
    by_midpoint: str  # the transcript's words whose midpoint lies in the emitted audio
    by_alignment: str  # the reply's words whose independently aligned start was emitted
    #: Emitted audio after the aligned start nearest the cut (ms; negative: it starts after
    #: the cut): how close a disputed word came.
    onset_margin_ms: float | None = None

    @property
    def count_error(self) -> int:
        """Whisper's words minus heard words (positive: the listener got more)."""
        return len(words(self.transcript)) - len(words(self.heard))

    @property
    def midpoint_error(self) -> int:
        """The same, counting only Whisper's words whose midpoint was emitted."""
        return len(words(self.by_midpoint)) - len(words(self.heard))

    @property
    def aligned_error(self) -> int:
        """The same, counting the reply's words whose aligned start was emitted."""
        return len(words(self.by_alignment)) - len(words(self.heard))

    def error(self, judge: Judge) -> int:
        """The signed word error under ``judge``."""
        if judge == "count":
            return self.count_error
        return self.midpoint_error if judge == "midpoint" else self.aligned_error


@dataclass(frozen=True)
class HeardFigures:
    """The cuts measured and how heard text compared with the emitted audio."""

    cuts: tuple[Cut, ...]

    @property
    def exact_fraction(self) -> float | None:
        """Share of cuts where the heard word count equals Whisper's."""
        return _exact([c.count_error for c in self.cuts])

    @property
    def paused_exact_fraction(self) -> float | None:
        """The same, over the cuts that went through a pause."""
        return _exact([c.count_error for c in self.cuts if c.paused])

    @property
    def paused_agrees_fraction(self) -> float | None:
        """Share of moments where the paused cut's error equals the straight cut's at the
        same moment: the pause itself changed nothing Whisper can hear."""
        pairs = list(zip(self.cuts[::2], self.cuts[1::2], strict=False))
        same = [straight.count_error == paused.count_error for straight, paused in pairs]
        return round(sum(same) / len(same), 3) if same else None

    @property
    def max_word_error(self) -> int | None:
        """Largest |heard words - Whisper's words| over the cuts."""
        return max((abs(c.count_error) for c in self.cuts), default=None)

    @property
    def midpoint_exact_fraction(self) -> float | None:
        """Share of cuts exact under the midpoint judge."""
        return _exact([c.midpoint_error for c in self.cuts])

    @property
    def midpoint_max_word_error(self) -> int | None:
        """Largest error under the midpoint judge."""
        return max((abs(c.midpoint_error) for c in self.cuts), default=None)

    @property
    def within_one_fraction(self) -> float | None:
        """Share of cuts where Whisper's count is within one word of the heard count (the
        wire's "accurate to about one word either way")."""
        return _within_one([c.count_error for c in self.cuts])

    @property
    def aligned_exact_fraction(self) -> float | None:
        """Share of cuts where the heard words are exactly those whose aligned start was
        emitted."""
        return _exact([c.aligned_error for c in self.cuts])

    @property
    def paused_aligned_exact_fraction(self) -> float | None:
        """The same, over the cuts that went through a pause."""
        return _exact([c.aligned_error for c in self.cuts if c.paused])

    @property
    def aligned_within_one_fraction(self) -> float | None:
        """Share of cuts within one word under the aligned judge."""
        return _within_one([c.aligned_error for c in self.cuts])

    @property
    def aligned_max_word_error(self) -> int | None:
        """Largest error under the aligned judge."""
        return max((abs(c.aligned_error) for c in self.cuts), default=None)

    def errors(self, judge: Judge = "count") -> dict[str, int]:
        """How many cuts were off by each signed word count ("-1", "0", "1", ...)."""
        found = Counter(c.error(judge) for c in self.cuts)
        return {str(k): found[k] for k in sorted(found)}

    def examples(self) -> list[dict[str, object]]:
        """A few cuts Whisper's count disagrees on: the last words heard and transcribed."""
        return [
            {
                "emitted_s": round(c.emitted_s, 2),
                "heard_tail": " ".join(words(c.heard)[-4:]),
                "transcript_tail": " ".join(words(c.transcript)[-4:]),
                "error": c.count_error,
            }
            for c in self.cuts
            if c.count_error
        ][:EXAMPLES]

    def aligned_examples(self) -> list[dict[str, str | float | None]]:
        """A few cuts the aligned judge disagrees on, with how far from the cut the nearest
        aligned word start lay."""
        return [
            {
                "emitted_s": round(c.emitted_s, 2),
                "paused": c.paused,
                "heard_tail": " ".join(words(c.heard)[-4:]),
                "aligned_tail": " ".join(words(c.by_alignment)[-4:]),
                "error": c.aligned_error,
                "onset_margin_ms": c.onset_margin_ms,
            }
            for c in self.cuts
            if c.aligned_error
        ][:EXAMPLES]


def _exact(errors: list[int]) -> float | None:
    return round(sum(e == 0 for e in errors) / len(errors), 3) if errors else None


def _within_one(errors: list[int]) -> float | None:
    return round(sum(abs(e) <= 1 for e in errors) / len(errors), 3) if errors else None


def released_samples(
    sent: npt.NDArray[np.int16], audio: npt.NDArray[np.int16], before_cut: int
) -> int:
    """How many of ``audio``'s samples were emitted: of the ``before_cut`` samples the sink
    got before the cut (or the pause), the run from the start that is ``audio``'s own,
    sample for sample (a skipped or repeated block ends it)."""
    n = min(before_cut, len(sent), len(audio))
    differs = np.flatnonzero(sent[:n] != audio[:n])
    return int(differs[0]) if len(differs) else n


def released_words(tokens: Sequence[str], onsets: Sequence[int | None], released: int) -> str:
    """The wire's rule on an alignment: the tokens whose first sample (``onsets``, one per
    token) is among the ``released`` first samples. A token with no onset (not spoken as a
    word) is no word."""
    return " ".join(
        token
        for token, onset in zip(tokens, onsets, strict=True)
        if onset is not None and onset < released
    )


def onset_margin_ms(onsets: Sequence[int | None], released: int, rate: int) -> float | None:
    """Audio emitted after the word start nearest the cut, in ms (negative: that word starts
    after the cut)."""
    known = [onset for onset in onsets if onset is not None]
    if not known:
        return None
    nearest = min(known, key=lambda onset: abs(released - onset))
    return round((released - nearest) * 1000 / rate, 1)


class _FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def cut_at(
    clips: list[Clip], at_s: float, *, paused: bool = False
) -> tuple[MemorySink, list[str], float]:
    """Play ``clips`` as one unit through the playout clock, cut at ``at_s`` on a fake clock
    (``paused``: paused at ``at_s``, cut :data:`PAUSED_S` later).

    Returns the sink (silence after the cut included), the words the clock reported heard,
    and how many seconds of audio were released before the cut (or the pause).
    """
    rate = clips[0].sample_rate
    sink = MemorySink(rate)
    heard: list[str] = []
    fake = _FakeClock()
    clock = PlayoutClock(
        sink,
        on_word=lambda _sid, _i, word, _at: heard.append(word),
        on_unit_done=lambda _sid: None,
        clock=fake,
    )
    clock.open_unit(1)
    for clip in clips:
        clock.enqueue(1, clip)
    clock.end_unit(1)
    clock.pump()  # block 0 is due at time 0
    fake.now = at_s
    clock.pump()
    emitted_s = len(sink.samples()) / rate
    if paused:
        clock.pause()
        fake.now += PAUSED_S
        clock.pump()
    clock.cut()
    fake.now += TAIL_S
    clock.pump()
    return sink, heard, emitted_s


def measure_heard(
    models: Models, cuts: int, progress: Progress, rng: random.Random
) -> HeardFigures:
    """``cuts`` cuts over the typical replies at ``cuts / 2`` random moments (straight, then
    through a pause), each transcribed by Whisper and judged on the replies' independent
    alignment (made once per reply, on its uncut audio)."""
    synthesized = {reply: list(models.synthesizer.synthesize(reply)) for reply in BOT_REPLIES}
    audio = {
        reply: np.concatenate([c.samples for c in clips]) for reply, clips in synthesized.items()
    }
    rate = models.synthesizer.sample_rate
    onsets = {reply: word_onsets(audio[reply], rate, reply) for reply in BOT_REPLIES}
    measured: list[Cut] = []
    reply, at_s = BOT_REPLIES[0], 0.0
    for index in range(1, cuts + 1):
        paused = index % 2 == 0
        if not paused:
            reply = rng.choice(BOT_REPLIES)
            at_s = rng.uniform(0.0, sum(c.duration for c in synthesized[reply]))
        clips = synthesized[reply]
        sink, heard, emitted_s = cut_at(clips, at_s, paused=paused)
        pcm = resample(as_float32(sink.samples()), sink.sample_rate, SAMPLE_RATE)
        transcript = models.transcriber.transcribe(pcm, word_timestamps=True)
        by_midpoint = [w.text for w in transcript.words if (w.start + w.end) / 2 <= emitted_s]
        released = released_samples(sink.samples(), audio[reply], round(emitted_s * rate))
        cut = Cut(
            reply,
            paused,
            emitted_s,
            " ".join(heard),
            transcript.text,
            " ".join(by_midpoint),
            released_words(reply.split(), onsets[reply], released),
            onset_margin_ms(onsets[reply], released, rate),
        )
        measured.append(cut)
        how = "paused, then cut" if paused else "cut"
        progress(
            f"  {how} {index}/{cuts} at {emitted_s:.2f} s: heard {len(words(cut.heard))} words, "
            f"Whisper {len(words(cut.transcript))} ({cut.count_error:+d}; "
            f"by midpoint {cut.midpoint_error:+d}; aligned {cut.aligned_error:+d})"
        )
    return HeardFigures(tuple(measured))
