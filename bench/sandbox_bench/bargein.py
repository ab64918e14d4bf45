"""Barge-in: how fast a caller's objection silences the bot and reaches the brain.

A real call to the concierge: a typed question starts a long reply; after a random number of
its words were heard, an espeak-ng objection (several phrasings, in turn) goes into the
microphone path. The bot pauses as the voice starts and the objection then takes the floor
(pause, then decide). Measured per run:

* decision -> silence: from the moment the listener decided to pause (host time when it
  emitted OverBot) to the first silent block the playout released after the last sound it
  released before the pause took effect;
* onset -> silence: from the objection's first sample to that silent block (the figure the
  peer was measured on);
* onset -> pause decision, onset -> barge-in decision, onset -> Interruption (the frame sent
  to the brain).

An objection *landed* when it took the floor, the Interruption went out and it reached the
brain as a turn.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass

from sandbox.call.caller_events import BargeIn, ListenerEvent, OverBot
from sandbox.call.effects import PausePlayout
from sandbox_bench.call import (
    BenchCall,
    CallLog,
    bench_call,
    interrupted_after,
    listening,
    say,
    turn_sent_after,
    until,
)
from sandbox_bench.figures import Progress, fmt_ms, median
from sandbox_bench.mic import CallerLine
from sandbox_bench.models import Models
from sandbox_bench.texts import LONG_REPLY_QUESTIONS, OBJECTIONS

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
    onset_to_decision_ms: float  # the pause
    decision_to_silence_ms: float
    onset_to_interruption_ms: float
    onset_to_silence_ms: float
    onset_to_barge_in_ms: float  # the decision that the caller took the floor


@dataclass(frozen=True)
class BargeInFigures:
    """Medians over the objections that landed."""

    runs: tuple[BargeInRun, ...]
    attempts: int

    @property
    def landed_fraction(self) -> float | None:
        """Share of objections that took the floor and reached the brain."""
        return round(len(self.runs) / self.attempts, 3) if self.attempts else None

    @property
    def onset_to_barge_in_ms(self) -> float | None:
        """Median caller onset -> the decision that they took the floor."""
        return median([r.onset_to_barge_in_ms for r in self.runs])

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
        """Median caller onset -> the decision to pause."""
        return median([r.onset_to_decision_ms for r in self.runs])


def first_silence(
    releases: Sequence[tuple[int, float]], decided_ms: int, cut_ms: int
) -> float | None:
    """When the speaker went quiet for a pause (or cut) decided at ``decided_ms`` and applied
    by ``cut_ms``.

    The first silent block at or after the decision that follows the last block with sound
    released before it was applied; if the block before that one sounded, the speaker went
    quiet where its sound ended (a fade-out ends within its block), though not before the
    decision. ``releases`` are (ms, ms the block sounded for).
    """
    last_loud = max((i for i, (t, loud) in enumerate(releases) if loud and t <= cut_ms), default=-1)
    after = range(last_loud + 1, len(releases))
    quiet = next((i for i in after if not releases[i][1] and releases[i][0] >= decided_ms), None)
    if quiet is None:
        return None
    t, sounded = (
        releases[quiet - 1] if quiet else (0, 0.0)
    )  # the block before it: its sound ended within it
    return min(releases[quiet][0], max(decided_ms, t + sounded)) if sounded else releases[quiet][0]


def barge_in_run(words_before: int, onset_ms: float, log: CallLog) -> BargeInRun | None:
    """The barge-in of an objection whose voice began at ``onset_ms``, from the call's log."""
    paused = first_event(log.events, OverBot, onset_ms)
    decided = first_event(log.events, BargeIn, onset_ms)
    sent = log.interruption_after(onset_ms)
    if paused is None or decided is None or sent is None:
        return None
    held = next((t for t, e in log.effects if isinstance(e, PausePlayout) and t >= paused), None)
    silent = None if held is None else first_silence(log.releases, paused, held)
    if silent is None:
        return None
    return BargeInRun(
        words_before=words_before,
        onset_to_decision_ms=paused - onset_ms,
        decision_to_silence_ms=silent - paused,
        onset_to_interruption_ms=sent - onset_ms,
        onset_to_silence_ms=silent - onset_ms,
        onset_to_barge_in_ms=decided - onset_ms,
    )


def first_event(
    events: Sequence[tuple[int, ListenerEvent]], kind: type, after_ms: float
) -> int | None:
    """When the listener first emitted an event of ``kind`` at or after ``after_ms``."""
    return next((t for t, e in events if isinstance(e, kind) and t >= after_ms), None)


async def measure_barge_in(
    models: Models, runs: int, progress: Progress, rng: random.Random
) -> BargeInFigures:
    """``runs`` objections, each over a fresh long reply to a typed question."""
    objections = [await asyncio.to_thread(CallerLine.spoken, text) for text in OBJECTIONS]
    measured: list[BargeInRun] = []
    async with bench_call(models, "concierge") as call:
        # The greeting plays out first. Not just for realism: the echo canceller has not
        # converged in a call's first seconds and then suppresses the caller's voice too.
        await until(listening(call.host))
        for index in range(1, runs + 1):
            words = rng.randint(*WORDS_BEFORE)
            objection = objections[(index - 1) % len(objections)]
            run = await _one_objection(call, objection, index, words)
            if run is None:
                progress(f"  barge-in {index}/{runs}: {objection.text!r} did not land")
                continue
            measured.append(run)
            progress(
                f"  barge-in {index}/{runs} after {words} words: silent "
                f"{fmt_ms(run.onset_to_silence_ms)} after onset, took the floor "
                f"{fmt_ms(run.onset_to_barge_in_ms)} after onset, Interruption "
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
    await until(interrupted_after(call.log, onset), DECISION_WAIT_S)
    # Once the objection reached the brain the next question may cut the answer to it.
    if not await until(turn_sent_after(call.log, end), TURN_WAIT_S):
        return None
    return barge_in_run(words, onset, call.log)
