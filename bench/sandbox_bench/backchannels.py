"""Backchannels and noises over the bot: does it pause, go on, and keep every word?

A real call to the concierge, as for barge-ins: a typed question starts a long reply; after
a random number of its words, a backchannel ("mm-hmm", "okay", a laugh...) in one of several
espeak-ng voices and levels, or a room noise (a cough, a knock), goes into the microphone
path. Per trial:

* *kept*: the bot kept the floor: nothing took it, and every unit of the reply played out;
* *answered*: a UserMessage went to the brain (the backchannel became a turn);
* *whole*: every word of the reply's units was released exactly once, in order (nothing
  repeated or skipped across a pause), so the heard text that the Finalize carries is what
  the caller heard;
* *resume gap*: from the speaker going quiet for a pause to the first sound after it
  resumed (when it paused).
"""

from __future__ import annotations

import asyncio
import random
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from sandbox.audio.resample import Float32
from sandbox.call.caller_events import BargeIn, BotResumes, OverBot
from sandbox.call.effects import PausePlayout, ResumePlayout
from sandbox.call.played import WordPlayed
from sandbox.call.units import Fate
from sandbox_bench.bargein import first_event, first_silence
from sandbox_bench.call import BenchCall, bench_call, listening, say, until
from sandbox_bench.figures import Progress, fmt_ms, median
from sandbox_bench.mic import CallerLine
from sandbox_bench.models import Models
from sandbox_bench.noises import cough, knock
from sandbox_bench.texts import LONG_REPLY_QUESTIONS

#: What callers say over a bot without wanting the floor.
BACKCHANNELS = (
    "Mm-hmm.",
    "Uh-huh.",
    "Okay.",
    "Yeah.",
    "Right.",
    "Sure.",
    "I see.",
    "Yeah, yeah.",
    "Ha ha.",
)
#: Sounds of the caller's room.
NOISES: dict[str, Callable[[], Float32]] = {"(a cough)": cough, "(a knock at the door)": knock}
#: espeak-ng voices and how loud, taken in turn: a man, a woman, another accent, quieter.
VOICES = (("en-us+m3", 1.0), ("en-us+f3", 0.5), ("en-gb+m1", 0.7), ("en-us+f2", 0.25))
#: The backchannel starts after this many words of the reply were heard.
WORDS_BEFORE = (2, 6)
#: After the reply played out, time for the listener to close the backchannel's own turn.
SETTLE_S = 1.5


@dataclass(frozen=True)
class BackchannelTrial:
    """One backchannel or noise over the bot."""

    label: str
    voice: str
    gain: float
    paused: bool
    kept: bool
    answered: bool
    whole: bool
    resume_gap_ms: float | None
    decision: str  # how the floor judge decided, and on what transcript


@dataclass(frozen=True)
class BackchannelFigures:
    """Fractions over the trials."""

    trials: tuple[BackchannelTrial, ...]

    def _share(self, hits: list[bool]) -> float | None:
        return round(sum(hits) / len(hits), 3) if hits else None

    @property
    def resumed_fraction(self) -> float | None:
        """Share of trials where the bot kept the floor."""
        return self._share([t.kept for t in self.trials])

    @property
    def answered_fraction(self) -> float | None:
        """Share of trials that reached the brain as a turn."""
        return self._share([t.answered for t in self.trials])

    @property
    def whole_fraction(self) -> float | None:
        """Share of kept trials whose reply released every word exactly once."""
        return self._share([t.whole for t in self.trials if t.kept])

    @property
    def paused_fraction(self) -> float | None:
        """Share of trials the bot paused for."""
        return self._share([t.paused for t in self.trials])

    @property
    def resume_gap_ms(self) -> float | None:
        """Median pause -> resumed audio."""
        return median([t.resume_gap_ms for t in self.trials if t.resume_gap_ms is not None])

    @property
    def variants(self) -> int:
        """How many different backchannels and noises were tried."""
        return len({t.label for t in self.trials})


@dataclass(frozen=True)
class TrialLine:
    """What a trial plays into the microphone, and in which voice and level."""

    line: CallerLine
    voice: str
    gain: float


def trial_lines(count: int) -> list[TrialLine]:
    """``count`` lines to play, cycling through every backchannel and noise and the voices
    (call off the event loop: espeak-ng runs as a subprocess)."""
    labels = [*BACKCHANNELS, *NOISES]
    out: list[TrialLine] = []
    for index in range(count):
        label = labels[index % len(labels)]
        voice, gain = VOICES[index % len(VOICES)]
        if label in NOISES:
            out.append(TrialLine(CallerLine.of_audio(label, NOISES[label]() * gain), "room", gain))
        else:
            line = CallerLine.spoken(label, voice=voice, gain=gain)
            out.append(TrialLine(line, voice, gain))
    return out


async def measure_backchannels(
    models: Models, trials: int, progress: Progress, rng: random.Random
) -> BackchannelFigures:
    """``trials`` backchannels and noises, each over a fresh long reply."""
    lines = await asyncio.to_thread(trial_lines, trials)
    measured: list[BackchannelTrial] = []
    async with bench_call(models, "concierge") as call:
        released: dict[int, list[int]] = defaultdict(list)

        def word(played: WordPlayed) -> None:
            if played.index is not None:
                released[played.speech_id].append(played.index)

        call.engine.playout().word_hooks.append(word)
        await until(listening(call.host))
        for index, played in enumerate(lines, start=1):
            words = rng.randint(*WORDS_BEFORE)
            trial = await _one_trial(call, played, index, words, released)
            if trial is None:
                progress(f"  backchannel {index}/{trials}: the reply never got going; skipped")
                continue
            measured.append(trial)
            outcome = "kept the floor" if trial.kept else "LOST the floor"
            paused = (
                f"paused, resumed after {fmt_ms(trial.resume_gap_ms)}"
                if trial.paused and trial.resume_gap_ms is not None
                else ("paused" if trial.paused else "did not pause")
            )
            progress(
                f"  backchannel {index}/{trials} {trial.label!r} ({trial.voice}, "
                f"x{trial.gain}): "
                f"{paused}; {outcome}"
                + ("; ANSWERED as a turn" if trial.answered else "")
                + ("" if trial.whole or not trial.kept else "; words NOT released once each")
                + f" [{trial.decision}]"
            )
    return BackchannelFigures(tuple(measured))


async def _one_trial(
    call: BenchCall,
    played: TrialLine,
    index: int,
    words: int,
    released: dict[int, list[int]],
) -> BackchannelTrial | None:
    host, log = call.host, call.log
    turn = host.core.turn + 1
    skips = host.core.ledger.alignment_skips
    host.caller_turn(LONG_REPLY_QUESTIONS[(index - 1) % len(LONG_REPLY_QUESTIONS)], typed=True)

    def reply_heard() -> bool:
        return any(u.turn_id == turn and len(u.heard.split()) >= words for u in host.core.units)

    if not await until(reply_heard):
        return None
    spoken = await say(call, played.line)
    onset = spoken.voice_start_ms
    assert onset is not None
    await until(listening(host))
    await asyncio.sleep(SETTLE_S)
    await until(listening(host))
    units = [u for u in host.core.units if u.turn_id == turn]
    barged = first_event(log.events, BargeIn, onset) is not None
    kept = bool(units) and not barged and all(u.fate is Fate.PLAYED for u in units)
    whole = host.core.ledger.alignment_skips == skips and all(
        released[u.speech_id] == list(range(len(released[u.speech_id]))) for u in units
    )
    return BackchannelTrial(
        label=played.line.text,
        voice=played.voice,
        gain=played.gain,
        paused=first_event(log.events, OverBot, onset) is not None,
        kept=kept,
        answered=log.turn_after(onset) is not None,
        whole=whole,
        resume_gap_ms=_resume_gap(call, onset),
        decision=_decision(call, onset),
    )


def _decision(call: BenchCall, onset: float) -> str:
    """The floor judge's first decision after ``onset``, in words."""
    for t, event in call.log.events:
        if t < onset:
            continue
        if isinstance(event, BotResumes):
            said = f" {event.text!r}" if event.text else ""
            return f"resumed ({event.why}{said}) {t - onset:.0f} ms after onset"
        if isinstance(event, BargeIn):
            return f"taken ({event.why}) {event.t_decided - event.t_onset} ms after onset"
    return "undecided"


def _resume_gap(call: BenchCall, onset: float) -> float | None:
    """From the speaker going quiet for the pause to its first sound after the resume."""
    log = call.log
    paused = first_event(log.events, OverBot, onset)
    held = next((t for t, e in log.effects if isinstance(e, PausePlayout) and t >= onset), None)
    resumed = next((t for t, e in log.effects if isinstance(e, ResumePlayout) and t >= onset), None)
    if paused is None or held is None or resumed is None:
        return None
    quiet = first_silence(log.releases, paused, held)
    loud = next((t for t, sound in log.releases if sound and t >= resumed), None)
    return None if quiet is None or loud is None else float(loud - quiet)
