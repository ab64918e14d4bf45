"""Caller pauses and the end of turn: cut-offs, early commits and the turn model's time.

Each utterance of the held-apart set (:mod:`sandbox_bench.pause_set`) goes through the real
listening path (VAD, endpointer, the audio turn model, Whisper tiny.en), one listener per
utterance and patience, fed in 20 ms blocks on the audio's own clock. Whisper and the turn
model answer at once (their hooks run inline), so the figures are the decisions' and the
windows', not the machine's: how fast Whisper and the model are is measured on their own
(``turn_model_ms`` here, Whisper's in the real-time factors stage, the whole path at the
devices).

* ``false_cutoff_fraction``: paused utterances a turn was committed in before the caller
  spoke again (at the default patience; ``false_cutoff_by_patience`` for the others,
  ``false_cutoff_by_kind`` for the sentences and the questions apart).
* ``afterthought_cutoff_fraction``: the same pauses after words said as a statement of their
  own (see :mod:`sandbox_bench.pause_set`), committed in the pause at the default patience:
  what answering a falling statement at once costs; reported, not bounded.
* ``early_commit_fraction``: complete utterances committed within 300 ms of their end.
* ``commit_after_end_ms``: median time from a complete utterance's end to its commit, for
  those Whisper punctuated and those it did not (no slow tail: they should match), and the
  worst.
* ``turn_model_ms``: the median of one turn model call (features and inference), this
  machine.
* ``pause_stage_s``: how long the stage took (it is part of the full ``sandbox bench``, not of
  ``--quick``).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sandbox.audio.endpointer import looks_complete
from sandbox.audio.listener import Listener
from sandbox.audio.recognizer import Recognizer
from sandbox.audio.resample import Float32
from sandbox.audio.stt import SAMPLE_RATE, Transcript
from sandbox.audio.turn_model import TurnModel
from sandbox.call.caller_events import TurnCommitted
from sandbox.call.endpointing_steps import EndpointingStep, Guess, TurnClosed
from sandbox.call.settings import DEFAULT_PATIENCE
from sandbox_bench.figures import Progress, median
from sandbox_bench.pause_set import Utterance, afterthought_set, complete_set, paused_set

#: A commit this soon after the utterance's end is early.
EARLY_MS = 300
BLOCK_MS = 20
#: The patiences judged: the default, and 10 (which promises no cut-off in these pauses;
#: patience 0 closes any pause past 450 ms by design).
PATIENCES = (DEFAULT_PATIENCE, 10)
#: Items of each set in --quick.
QUICK_ITEMS = 3

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

    transcriber: Recognizer
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


def first_commit(
    memo: InlineModels,
    item: int,
    utterance: Utterance,
    patience: int,
    decisions: list[EndpointingStep] | None = None,
    *,
    narrowband: bool = False,
) -> TurnCommitted | None:
    """The first turn one utterance commits at ``patience`` (the rest of its audio is not fed:
    nothing after it changes a figure); the listener's decisions (its endpointing steps) go to
    ``decisions`` when given; ``narrowband``: heard through a narrowband line."""
    transcribe, judge = memo.hooks(item)
    listener = Listener(transcribe, patience=patience, judge_turn=judge, narrowband=narrowband)
    if decisions is not None:
        listener.on_decision = lambda _t, step: decisions.append(step)
    block = SAMPLE_RATE * BLOCK_MS // 1000
    for start in range(0, len(utterance.audio), block):
        t_ms = start * 1000 // SAMPLE_RATE
        events = listener.feed(utterance.audio[start : start + block], SAMPLE_RATE, t_ms, False)
        committed = next((e for e in events if isinstance(e, TurnCommitted)), None)
        if committed is not None:
            return committed
    return None


def _cut_off(
    memo: InlineModels, item: int, utterance: Utterance, patience: int, narrowband: bool
) -> str | None:
    """Why a paused utterance was cut off in its pause: ``"punctuated"`` (Whisper's guess
    read as finished) or ``"turn_model"`` (the model called an unpunctuated guess finished);
    None when it was not."""
    assert utterance.pause is not None
    decisions: list[EndpointingStep] = []
    committed = first_commit(memo, item, utterance, patience, decisions, narrowband=narrowband)
    if committed is None or committed.t_end_of_speech >= utterance.pause[1]:
        return None
    closed = next(i for i, step in enumerate(decisions) if isinstance(step, TurnClosed))
    guesses = [step for step in decisions[:closed] if isinstance(step, Guess)]
    return "punctuated" if guesses and guesses[-1].complete else "turn_model"


def cut_offs(
    memo: InlineModels, paused: list[Utterance], patience: int, *, narrowband: bool = False
) -> list[str | None]:
    """Why each paused utterance was cut off in its pause at ``patience`` (None: it was
    not); ``memo``'s keys are the utterances' places in ``paused``; ``narrowband``: they are
    heard through a narrowband line."""
    return [_cut_off(memo, i, u, patience, narrowband) for i, u in enumerate(paused)]


def fraction(flags: list[bool]) -> float | None:
    """The share of ``flags`` set, to three places (None for none)."""
    return round(sum(flags) / len(flags), 3) if flags else None


def measure_pauses(
    transcriber: Recognizer, progress: Progress, *, quick: bool = False
) -> dict[str, Any]:
    """The stage's figures (see the module docstring)."""
    started = time.monotonic()
    limit = QUICK_ITEMS if quick else None
    paused, complete = paused_set(limit), complete_set(limit)
    model = TurnModel.load()
    memo = InlineModels(transcriber, model)
    causes: dict[int, list[str | None]] = {}
    for patience in PATIENCES:
        causes[patience] = cut_offs(memo, paused, patience)
        cut = sum(c is not None for c in causes[patience])
        progress(f"  patience {patience}: {cut}/{len(paused)} cut off")
    cutoffs = {p: [c is not None for c in found] for p, found in causes.items()}
    # Memo keys: the paused set's, then the complete set's, then the afterthoughts'.
    offset = len(paused)
    afterthoughts = afterthought_set(limit)
    added = [
        _cut_off(memo, offset + len(complete) + i, u, DEFAULT_PATIENCE, False) is not None
        for i, u in enumerate(afterthoughts)
    ]
    progress(f"  afterthoughts, patience {DEFAULT_PATIENCE}: {sum(added)}/{len(added)} cut off")
    after: list[tuple[float, bool]] = []
    for i, u in enumerate(complete):
        committed = first_commit(memo, offset + i, u, DEFAULT_PATIENCE)
        if committed is not None:
            after.append((committed.t_committed - u.end_ms, looks_complete(committed.text)))
        else:
            progress(f"  no commit for {u.text!r}")
    punctuated = [ms for ms, p in after if p]
    bare = [ms for ms, p in after if not p]
    return {
        "false_cutoff_fraction": fraction(cutoffs[DEFAULT_PATIENCE]),
        "false_cutoff_by_patience": {str(p): fraction(c) for p, c in cutoffs.items()},
        "false_cutoff_causes": dict(Counter(c for c in causes[DEFAULT_PATIENCE] if c)),
        # Sentences said as still going, and questions said as questions, apart.
        "false_cutoff_by_kind": {
            kind: fraction(
                [
                    cut
                    for cut, u in zip(cutoffs[DEFAULT_PATIENCE], paused, strict=True)
                    if u.asked is asked
                ]
            )
            for kind, asked in (("sentences", False), ("questions", True))
        },
        "afterthought_cutoff_fraction": fraction(added),
        "early_commit_fraction": fraction([ms <= EARLY_MS for ms, _p in after]),
        "commit_after_end_ms": {
            "punctuated": median(punctuated),
            "unpunctuated": median(bare),
            "worst": max((ms for ms, _p in after), default=None),
            # Whisper leaves only a few unpunctuated: their median moves with one of them.
            "unpunctuated_count": len(bare),
        },
        "pause_set": {
            "paused": len(paused),
            "paused_questions": sum(u.asked for u in paused),
            "complete": len(complete),
            "afterthoughts": len(afterthoughts),
        },
        "turn_model_ms": median(memo.model_ms),
        "pause_stage_s": round(time.monotonic() - started, 1),
    }


def pauses_table(figures: dict[str, Any]) -> str:
    """The stage's figures as lines for a person."""
    after = figures["commit_after_end_ms"]
    by = ", ".join(f"{p}: {f}" for p, f in figures["false_cutoff_by_patience"].items())
    kinds = ", ".join(f"{k} {f}" for k, f in figures["false_cutoff_by_kind"].items())
    sizes = figures["pause_set"]
    return "\n".join(
        [
            f"utterances: {sizes['paused']} paused ({sizes['paused_questions']} of them "
            f"questions), {sizes['complete']} complete, {sizes['afterthoughts']} afterthoughts",
            f"false cut-offs: {figures['false_cutoff_fraction']} (by patience: {by}; "
            f"by kind: {kinds})",
            f"afterthoughts answered after their first statement: "
            f"{figures['afterthought_cutoff_fraction']}",
            f"complete, committed within {EARLY_MS} ms: {figures['early_commit_fraction']}",
            f"end -> commit: punctuated {after['punctuated']} ms, unpunctuated "
            f"{after['unpunctuated']} ms (of {after['unpunctuated_count']}), "
            f"worst {after['worst']} ms",
            f"turn model: {figures['turn_model_ms']} ms a call",
        ]
    )
