"""Runs every measurement family in turn and collects the result.

Stages run one after another, never side by side: each figure is taken on a machine doing
only that. Progress goes to the ``progress`` callback (stderr in the command).

Resident memory is read after loading both models and again after warming them up; peak
memory is read after the calls (both models loaded and used as a call uses them) and
before the heard-text stage: that stage's Whisper runs with word timestamps are the bench's
own instrument, and they grow the heap (~1 MB a run) in a way no call does. The whole
process's peak is reported too, as ``bench_peak_rss_mb``.
"""

from __future__ import annotations

import os
import platform
import random
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

from sandbox_bench.backchannels import measure_backchannels
from sandbox_bench.bargein import measure_barge_in
from sandbox_bench.device_report import device_result
from sandbox_bench.echo import measure_echo
from sandbox_bench.figures import Progress, fmt_ms
from sandbox_bench.first_audio import measure_first_audio
from sandbox_bench.greeting import measure_greeting_barge_in
from sandbox_bench.heard import measure_heard
from sandbox_bench.load import measure_load
from sandbox_bench.models import MemoryFigures, load_models, peak_rss_mb, warm_up
from sandbox_bench.outside import measure_devices
from sandbox_bench.pauses import measure_pauses
from sandbox_bench.report import Figures, result
from sandbox_bench.rtf import measure_rtf
from sandbox_bench.soak import rss_mb
from sandbox_bench.turns import measure_turns

#: (runs, cuts, replies) for a full run and for --quick.
# Nine echo replies (was 20, then 12: ~8 s each) and eleven backchannels, one of each kind
# (was 22): with the pause set, the floor at the devices and both of the peer's
# configurations over 24 turns, the full run took 24.4 min on a quiet machine with 12.
FULL = (5, 50, 9)
QUICK = (2, 6, 3)
#: (objections, backchannels, greeting barge-ins) for a full run and for --quick (one of
#: each: a backchannel's trial waits out a whole long reply, ~16 s).
FULL_FLOOR = (10, 11, 10)
QUICK_FLOOR = (1, 1, 1)
#: The app's patiences timed at the devices in a full run: the default alone (``--patience
#: 7,6,0,10`` adds others: each took ~110 s, and the run with the peer's two configurations
#: must stay under 25 minutes); measured turns per system at the default patience (and each
#: of the peer's two configurations), drawn from the set of callers: 24, three or more of each
#: of its seven classes; other patiences take a quarter (see sandbox_bench.outside).
DEVICE_PATIENCES = (7,)
DEVICE_TURNS = 24
#: (patiences, turns) at the devices for --quick.
QUICK_DEVICE = ((7,), 3)
#: (backchannels, barge-ins) over the app's replies at the devices, full and --quick.
# Ten backchannels for a median; six barge-ins (the in-process stages time forty more):
# ~13 s a trial, and the full run must stay under 20 minutes with the pause stage in it.
DEVICE_FLOOR = (10, 6)
QUICK_DEVICE_FLOOR = (1, 1)  # an objection, then a backchannel over its reply: ~25 s
STAGES = 13


@dataclass(frozen=True)
class BenchConfig:
    """How much to measure: repeats of each latency, random cuts, echo replies, and the
    floor's trials (objections, backchannels and noises, barge-ins into the greeting)."""

    runs: int
    cuts: int
    replies: int
    quick: bool = False
    seed: int = 7
    objections: int = FULL_FLOOR[0]
    backchannels: int = FULL_FLOOR[1]
    greetings: int = FULL_FLOOR[2]
    device_patiences: tuple[int, ...] = DEVICE_PATIENCES
    device_turns: int = DEVICE_TURNS
    device_floor: tuple[int, int] = DEVICE_FLOOR
    peer: bool = False

    @classmethod
    def from_flags(
        cls,
        *,
        quick: bool,
        runs: int | None,
        cuts: int | None,
        replies: int | None,
        patiences: tuple[int, ...] | None = None,
        turns: int | None = None,
        peer: bool = False,
    ) -> BenchConfig:
        """The preset (full or quick), with any count the user gave instead."""
        preset_runs, preset_cuts, preset_replies = QUICK if quick else FULL
        objections, backchannels, greetings = QUICK_FLOOR if quick else FULL_FLOOR
        preset_patiences, preset_turns = QUICK_DEVICE if quick else (DEVICE_PATIENCES, DEVICE_TURNS)
        return cls(
            runs=preset_runs if runs is None else runs,
            cuts=preset_cuts if cuts is None else cuts,
            replies=preset_replies if replies is None else replies,
            quick=quick,
            objections=objections,
            backchannels=backchannels,
            greetings=greetings,
            device_patiences=preset_patiences if patiences is None else patiences,
            device_turns=preset_turns if turns is None else turns,
            device_floor=QUICK_DEVICE_FLOOR if quick else DEVICE_FLOOR,
            peer=peer,
        )


async def run_bench(config: BenchConfig, progress: Progress) -> dict[str, Any]:
    """Measure everything; returns the JSON-ready result."""
    started = time.monotonic()
    rng = random.Random(config.seed)
    began: list[float] = []  # when each stage began, from the start (s)

    def stage(number: int, words: str) -> None:
        at = time.monotonic() - started
        began.append(at)
        progress(f"[{number}/{STAGES}] {words} (at {at:.0f} s, peak {peak_rss_mb():.0f} MB)")

    stage(1, "loading models")
    models = load_models(lambda words: progress(f"  {words}"))
    after_load = rss_mb()
    warm_up(models)
    after_warm_up = rss_mb()
    progress(f"  resident {after_load:.0f} MB loaded, {after_warm_up:.0f} MB warmed up")
    stage(2, f"Whisper and Piper real-time factors ({config.runs} runs each)")
    rtf = measure_rtf(models, config.runs, progress)
    stage(3, f"first clause → first audio ({config.runs} units)")
    first_audio = measure_first_audio(models, config.runs, progress)
    progress(f"  median {fmt_ms(first_audio.first_chunk_to_first_audio_ms)}")
    stage(4, f"end of speech → UserMessage ({config.runs} spoken turns, echo brain)")
    turns = await measure_turns(models, config.runs, progress)
    progress(f"  median {fmt_ms(turns.end_of_speech_to_user_message_ms)}")
    stage(5, f"barge-in ({config.objections} objections over the concierge)")
    barge_in = await measure_barge_in(models, config.objections, progress, rng)
    progress(f"  median caller onset → silence {fmt_ms(barge_in.onset_to_silence_ms)}")
    stage(6, f"backchannels and noises ({config.backchannels} over the concierge)")
    backchannels = await measure_backchannels(models, config.backchannels, progress, rng)
    progress(f"  the bot kept the floor in {backchannels.resumed_fraction} of them")
    stage(7, f"barge-in into the greeting ({config.greetings} calls, laptop echo path, AEC on)")
    greeting = await measure_greeting_barge_in(models, config.greetings, progress, rng)
    progress(f"  {greeting.landed} of {len(greeting.trials)} landed")
    stage(8, f"echo: {config.replies} replies through a laptop echo path, AEC on")
    echo = await measure_echo(models, config.replies, progress)
    progress(f"  {echo.self_interruptions} self-interruptions")
    stage(9, "peak memory, both models used by the calls")
    peak = peak_rss_mb()
    progress(f"  {peak:.0f} MB")
    stage(10, f"heard text at {config.cuts} random cuts (Whisper; word starts aligned by espeak)")
    heard = measure_heard(models, config.cuts, progress, rng)
    pauses: dict[str, Any] = {}
    if config.quick:  # CI's quick run stays as quick: `sandbox bench --pauses --quick` has it
        stage(11, "caller pauses: not in --quick (sandbox bench --pauses)")
    else:
        stage(11, "caller pauses: paused and complete utterances through the end of turn")
        pauses = measure_pauses(models.transcriber, progress)
        progress(f"  false cut-offs {pauses['false_cutoff_fraction']} at the default patience")
    patiences = ", ".join(map(str, config.device_patiences))
    peer = " and both Pipecat configurations" if config.peer else ""
    stage(
        12,
        f"end of speech → first audio at the devices, outside the app (patience {patiences}{peer}),"
        " then backchannels and barge-ins",
    )
    devices = await measure_devices(
        config.device_patiences,
        config.device_turns,
        config.peer,
        progress,
        config.device_floor,
        config.seed,
    )
    stage(13, "load: calls at once at a caller's pace, the built-in brain (processes of their own)")
    load = measure_load(progress, quick=config.quick)
    memory = MemoryFigures(after_load, after_warm_up, peak)
    stages = (turns, first_audio, barge_in, backchannels, greeting, heard, echo, rtf)
    figures = Figures(*stages, memory)
    machine = {
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
    }
    elapsed = time.monotonic() - started
    extra = {
        **pauses,
        **device_result(devices),
        **load,
        "bench_peak_rss_mb": peak_rss_mb(),
        "config": asdict(config),
        "machine": machine,
        "elapsed_s": round(elapsed, 1),
        # The budget (20 minutes) is the full run's own: --peer adds the peer's stage to it.
        "elapsed_without_peer_s": round(elapsed - (devices.peer_s or 0.0), 1),
        "stage_s": [round(b - a, 1) for a, b in zip(began, [*began[1:], elapsed], strict=True)],
    }
    return result(figures, extra)
