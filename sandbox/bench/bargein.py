"""Barge-in: how fast a caller's objection silences the bot and reaches the brain.

A real call to the concierge: a typed question starts a long reply; after a random number of
its words were heard, an espeak-ng objection goes into the microphone path. Measured per run:

* decision -> silence: from the moment the listener decided the caller took the floor (host
  time when it emitted the BargeIn) to the first silent block the playout released after
  the last sound it released before the cut;
* onset -> Interruption: from the first sample of the objection's voice to the Interruption
  frame sent to the brain;
* onset -> silence: from the objection's first sample to that silent block (the figure the
  peer was measured on).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass

from sandbox.audio.bargein import BargeIn
from sandbox.audio.listener import ListenerEvent
from sandbox.bench.call import BenchCall, CallLog, bench_call, listening, say, sent_after, until
from sandbox.bench.figures import Progress, fmt_ms, median
from sandbox.bench.mic import CallerLine
from sandbox.bench.models import Models
from sandbox.bench.texts import LONG_REPLY_QUESTIONS, OBJECTION
from sandbox.call.effects import CutPlayout

#: The objection starts after this many words of the reply were heard (drawn at random).
WORDS_BEFORE = (2, 8)
#: Longest the decision may take after the objection's onset.
DECISION_WAIT_S = 5.0
#: Longest the objection may take to reach the brain as a turn after its voice ended.
TURN_WAIT_S = 15.0


@dataclass(frozen=True)
class BargeInRun:
    """One objection over the bot (milliseconds)."""

    words_before: int
    onset_to_decision_ms: float
    decision_to_silence_ms: float
    onset_to_interruption_ms: float
    onset_to_silence_ms: float


@dataclass(frozen=True)
class BargeInFigures:
    """Medians over the objections that took the floor."""

    runs: tuple[BargeInRun, ...]
    attempts: int

    @property
    def decision_to_silence_ms(self) -> float | None:
        """Median decision -> first silent block."""
        return median([r.decision_to_silence_ms for r in self.runs])

    @property
    def onset_to_interruption_ms(self) -> float | None:
        """Median caller onset -> Interruption frame."""
        return median([r.onset_to_interruption_ms for r in self.runs])

    @property
    def onset_to_silence_ms(self) -> float | None:
        """Median caller onset -> first silent block."""
        return median([r.onset_to_silence_ms for r in self.runs])

    @property
    def onset_to_decision_ms(self) -> float | None:
        """Median caller onset -> barge-in decision."""
        return median([r.onset_to_decision_ms for r in self.runs])


def first_silence(releases: Sequence[tuple[int, bool]], decided_ms: int, cut_ms: int) -> int | None:
    """When the speaker went quiet for a cut decided at ``decided_ms`` and applied by ``cut_ms``.

    The first silent block released at or after the decision that follows the last block
    with sound released before the cut was applied. ``releases`` are (ms, carried sound).
    """
    last_loud = max((i for i, (t, loud) in enumerate(releases) if loud and t <= cut_ms), default=-1)
    return next((t for t, loud in releases[last_loud + 1 :] if not loud and t >= decided_ms), None)


def barge_in_run(words_before: int, onset_ms: float, log: CallLog) -> BargeInRun | None:
    """The barge-in of an objection whose voice began at ``onset_ms``, from the call's log."""
    decided = _first_barge_in(log.events, onset_ms)
    sent = log.first_after("interruption", onset_ms)
    if decided is None or sent is None:
        return None
    cut = next((t for t, e in log.effects if isinstance(e, CutPlayout) and t >= decided), None)
    silent = None if cut is None else first_silence(log.releases, decided, cut)
    if silent is None:
        return None
    return BargeInRun(
        words_before=words_before,
        onset_to_decision_ms=decided - onset_ms,
        decision_to_silence_ms=silent - decided,
        onset_to_interruption_ms=sent[0] - onset_ms,
        onset_to_silence_ms=silent - onset_ms,
    )


def _first_barge_in(events: Sequence[tuple[int, ListenerEvent]], after_ms: float) -> int | None:
    return next((t for t, e in events if isinstance(e, BargeIn) and t >= after_ms), None)


async def measure_barge_in(
    models: Models, runs: int, progress: Progress, rng: random.Random
) -> BargeInFigures:
    """``runs`` objections, each over a fresh long reply to a typed question."""
    objection = await asyncio.to_thread(CallerLine.spoken, OBJECTION)
    measured: list[BargeInRun] = []
    async with bench_call(models, "concierge") as call:
        # The greeting plays out first. Not just for realism: the echo canceller has not
        # converged in a call's first seconds and then suppresses the caller's voice too.
        await until(listening(call.host))
        for index in range(1, runs + 1):
            words = rng.randint(*WORDS_BEFORE)
            run = await _one_objection(call, objection, index, words)
            if run is None:
                progress(f"  barge-in {index}/{runs}: the objection did not take the floor")
                continue
            measured.append(run)
            progress(
                f"  barge-in {index}/{runs} after {words} words: decided "
                f"{fmt_ms(run.onset_to_decision_ms)} after onset, silent "
                f"{fmt_ms(run.decision_to_silence_ms)} after the decision, Interruption "
                f"{fmt_ms(run.onset_to_interruption_ms)} after onset"
            )
    return BargeInFigures(tuple(measured), runs)


async def _one_objection(
    call: BenchCall, objection: CallerLine, index: int, words: int
) -> BargeInRun | None:
    host = call.host
    turn = host.core.turn + 1
    host.caller_turn(LONG_REPLY_QUESTIONS[(index - 1) % len(LONG_REPLY_QUESTIONS)], typed=True)

    def reply_heard() -> bool:
        return any(u.turn_id == turn and len(u.heard.split()) >= words for u in host.core.units)

    if not await until(reply_heard):
        return None
    spoken = await say(call, objection)
    onset, end = spoken.voice_start_ms, spoken.voice_end_ms
    assert onset is not None and end is not None
    await until(sent_after(call.log, "interruption", onset), DECISION_WAIT_S)
    # Once the objection reached the brain the next question may cut the answer to it.
    await until(sent_after(call.log, "user_message", end), TURN_WAIT_S)
    return barge_in_run(words, onset, call.log)
