"""Caller pauses and the end of turn: cut-offs, early commits and the turn model's time.

Each utterance of the held-apart set (:mod:`sandbox.bench.pause_set`) goes through the real
listening path (VAD, endpointer, the audio turn model, Whisper tiny.en), one listener per
utterance and patience, fed in 20 ms blocks on the audio's own clock. Whisper and the turn
model answer at once (their hooks run inline), so the figures are the decisions' and the
windows', not the machine's: how fast Whisper and the model are is measured on their own
(``turn_model_ms`` here, Whisper's in the real-time factors stage, the whole path at the
devices).

* ``false_cutoff_fraction``: paused utterances a turn was committed in before the caller
  spoke again (at the default patience; ``false_cutoff_by_patience`` for the others).
* ``early_commit_fraction``: complete utterances committed within 300 ms of their end.
* ``commit_after_end_ms``: median time from a complete utterance's end to its commit, for
  those Whisper punctuated and those it did not (no slow tail: they should match), and the
  worst.
* ``turn_model_ms``: the median of one turn model call (features and inference), this
  machine.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sandbox.audio.endpointer import looks_complete
from sandbox.audio.listener import Listener, TurnCommitted
from sandbox.audio.resample import Float32
from sandbox.audio.stt import SAMPLE_RATE, Transcriber, Transcript
from sandbox.audio.turn_model import TurnModel
from sandbox.bench.figures import Progress, median
from sandbox.bench.pause_set import Utterance, complete_set, paused_set
from sandbox.call.settings import DEFAULT_PATIENCE

#: A commit this soon after the utterance's end is early.
EARLY_MS = 300
BLOCK_MS = 20
#: The patiences judged: the default and both ends of the scale.
PATIENCES = (DEFAULT_PATIENCE, 0, 10)
#: Items of each set in --quick.
QUICK_ITEMS = 8
TARGETS: dict[str, tuple[str, float]] = {"false_cutoff_fraction": ("max", 0.05)}

T = TypeVar("T")


def _done(value: T) -> Future[T]:
    future: Future[T] = Future()
    future.set_result(value)
    return future


@dataclass
class InlineModels:
    """Whisper and the turn model answering inline (a done future), each answer kept per
    (utterance, audio length): patiences share them, so each clip is transcribed and judged
    once."""

    transcriber: Transcriber
    model: TurnModel | None
    transcripts: dict[tuple[int, int], Transcript] = field(default_factory=dict)
    verdicts: dict[tuple[int, int], float] = field(default_factory=dict)
    model_ms: list[float] = field(default_factory=list)

    def hooks(
        self, item: int
    ) -> tuple[
        Callable[[Float32, str], Future[Transcript]], Callable[[Float32], Future[float]] | None
    ]:
        def transcribe(pcm: Float32, language: str) -> Future[Transcript]:
            key = (item, len(pcm))
            if key not in self.transcripts:
                self.transcripts[key] = self.transcriber.transcribe(pcm, language=language)
            return _done(self.transcripts[key])

        model = self.model
        if model is None:
            return transcribe, None

        def judge(pcm: Float32) -> Future[float]:
            key = (item, len(pcm))
            if key not in self.verdicts:
                self.verdicts[key] = model.probability(pcm)
                self.model_ms.append(model.last_ms)
            return _done(self.verdicts[key])

        return transcribe, judge


def commits(
    memo: InlineModels, item: int, utterance: Utterance, patience: int
) -> list[TurnCommitted]:
    """The turns one utterance commits at ``patience``."""
    transcribe, judge = memo.hooks(item)
    listener = Listener(transcribe, patience=patience, judge_turn=judge)
    block = SAMPLE_RATE * BLOCK_MS // 1000
    out: list[TurnCommitted] = []
    for start in range(0, len(utterance.audio), block):
        t_ms = start * 1000 // SAMPLE_RATE
        events = listener.feed(utterance.audio[start : start + block], SAMPLE_RATE, t_ms, False)
        out += [e for e in events if isinstance(e, TurnCommitted)]
    return out


def _cut_off(utterance: Utterance, committed: list[TurnCommitted]) -> bool:
    assert utterance.pause is not None
    resume = utterance.pause[1]
    return any(c.t_end_of_speech < resume for c in committed)


def _fraction(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 3) if flags else None


def measure_pauses(
    transcriber: Transcriber, progress: Progress, *, quick: bool = False
) -> dict[str, Any]:
    """The stage's figures (see the module docstring)."""
    limit = QUICK_ITEMS if quick else None
    paused, complete = paused_set(limit), complete_set(limit)
    model = TurnModel.load_installed()
    if model is None:
        progress("  the turn model is not installed: the transcript decides alone")
    memo = InlineModels(transcriber, model)
    cutoffs: dict[int, list[bool]] = {}
    for patience in PATIENCES:
        cutoffs[patience] = [
            _cut_off(u, commits(memo, i, u, patience)) for i, u in enumerate(paused)
        ]
        progress(f"  patience {patience}: {sum(cutoffs[patience])}/{len(paused)} cut off")
    offset = len(paused)  # memo keys of the complete set follow the paused set's
    after: list[tuple[float, bool]] = []
    for i, u in enumerate(complete):
        committed = commits(memo, offset + i, u, DEFAULT_PATIENCE)
        if committed:
            after.append((committed[0].t_committed - u.end_ms, looks_complete(committed[0].text)))
        else:
            progress(f"  no commit for {u.text!r}")
    punctuated = [ms for ms, p in after if p]
    bare = [ms for ms, p in after if not p]
    return {
        "false_cutoff_fraction": _fraction(cutoffs[DEFAULT_PATIENCE]),
        "false_cutoff_by_patience": {str(p): _fraction(c) for p, c in cutoffs.items()},
        "early_commit_fraction": _fraction([ms <= EARLY_MS for ms, _p in after]),
        "commit_after_end_ms": {
            "punctuated": median(punctuated),
            "unpunctuated": median(bare),
            "worst": max((ms for ms, _p in after), default=None),
        },
        "pause_set": {"paused": len(paused), "complete": len(complete)},
        "turn_model": model is not None,
        "turn_model_ms": median(memo.model_ms),
    }
