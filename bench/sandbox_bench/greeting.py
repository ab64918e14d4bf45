"""Barging into the greeting: the echo canceller has not converged yet, does it still land?

Each trial is a fresh call to the concierge with the laptop echo path (the bot's voice comes
back into the microphone) and the echo canceller on. 0.3-1.0 s after the greeting's first
audio (drawn at random) the caller's objection starts. It *landed* when the bot paused for
it, the greeting was cut with an Interruption and the objection reached the brain as a turn.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass

from sandbox.audio.echo_path import LaptopEchoPath
from sandbox.audio.script_mic import ScriptMic
from sandbox.call.caller_events import OverBot
from sandbox.call.units import Fate
from sandbox_bench.bargein import first_event
from sandbox_bench.call import bench_call, say, turn_sent_after, until
from sandbox_bench.figures import Progress, median
from sandbox_bench.mic import CallerLine
from sandbox_bench.models import Models
from sandbox_bench.texts import OBJECTIONS

#: How far into the greeting the objection starts (seconds, drawn at random).
INTO_GREETING_S = (0.3, 1.0)
#: Longest the objection may take to reach the brain once it has been said.
TURN_WAIT_S = 15.0


@dataclass(frozen=True)
class GreetingTrial:
    """One objection into the greeting."""

    into_ms: float  # voice onset after the greeting's first audio
    landed: bool
    onset_to_pause_ms: float | None


@dataclass(frozen=True)
class GreetingFigures:
    """How many landed."""

    trials: tuple[GreetingTrial, ...]

    @property
    def landed(self) -> int:
        """Trials that landed."""
        return sum(t.landed for t in self.trials)

    @property
    def onset_to_pause_ms(self) -> float | None:
        """Median caller onset -> the decision to pause."""
        return median([t.onset_to_pause_ms for t in self.trials if t.onset_to_pause_ms is not None])


async def measure_greeting_barge_in(
    models: Models, trials: int, progress: Progress, rng: random.Random
) -> GreetingFigures:
    """``trials`` fresh calls, each barged into 0.3-1.0 s after its greeting starts."""
    lines = [await asyncio.to_thread(CallerLine.spoken, text) for text in OBJECTIONS]
    measured: list[GreetingTrial] = []
    for index in range(1, trials + 1):
        into_s = rng.uniform(*INTO_GREETING_S)
        line = lines[(index - 1) % len(lines)]
        trial = await _one_call(models, line, into_s)
        measured.append(trial)
        verdict = "landed" if trial.landed else "did NOT land"
        progress(
            f"  greeting barge-in {index}/{trials}, {trial.into_ms:.0f} ms into the greeting: "
            f"{verdict}"
        )
    return GreetingFigures(tuple(measured))


async def _one_call(models: Models, line: CallerLine, into_s: float) -> GreetingTrial:
    echo = LaptopEchoPath(ScriptMic.RATE)
    async with bench_call(models, "concierge", echo=echo) as call:
        host, log = call.host, call.log

        def first_audio() -> int | None:
            return next((t for t, sound in log.releases if sound), None)

        await until(lambda: first_audio() is not None)
        started = first_audio()
        assert started is not None
        wait_s = into_s - (host.now() - started) / 1000 - line.voice_start / ScriptMic.RATE
        await asyncio.sleep(max(0.0, wait_s))
        spoken = await say(call, line)
        onset, end = spoken.voice_start_ms, spoken.voice_end_ms
        assert onset is not None and end is not None
        await until(turn_sent_after(log, end), TURN_WAIT_S)
        greeting = [u for u in host.core.units if u.turn_id == 1]
        paused = first_event(log.events, OverBot, onset)
        landed = (
            paused is not None
            and log.interruption_after(onset) is not None
            and log.turn_after(onset) is not None
            and any(u.fate is Fate.BARGED for u in greeting)
        )
        return GreetingTrial(
            into_ms=onset - started,
            landed=landed,
            onset_to_pause_ms=None if paused is None else paused - onset,
        )
