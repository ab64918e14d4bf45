"""A long call watched for leaks: ``sandbox bench --soak MINUTES [--audio sim|real]``.

The caller is the re-drive bench's (the studio's usual questions, a barge-in every fifth
turn, a backchannel every seventh, nine silent seconds for an idle nudge every tenth),
played against the built-in concierge and recorded into a store of the bench's own, until
the minutes are up; then it hangs up.

* ``sim``: caller turns are text, playout is the simulated clock at 350 ms a word, **at wall
  speed** (not the warp clock): what a long call leaks can hang on time as much as on turns
  (the recorder's quarter-second commits, timers, idle nudges, the brain's socket), so the
  soak lives through every second of the call a user would leave running.
* ``real``: the same lines spoken by espeak-ng into PulseAudio's virtual microphone (the
  devices of :mod:`sandbox_bench.pulse`), heard through the real input device, the echo
  canceller, VAD, endpointing and Whisper; replies spoken by Piper through the virtual
  speaker's device clock. The engine decides barge-ins and backchannels itself.

Every sample: this process's resident memory and its parts (``/proc/self/status``: private
memory, mapped files such as the libraries' code, shared memory such as PulseAudio's
pool), the frames in flight (frames and events handed to the recorder but not yet
committed, plus events posted to the core but not yet taken), units in flight (not yet
finalized), asyncio tasks and threads. Before each look, the malloc arenas give their free
pages back (as the engine does after each reply), off the loop: a sample then reads what
the call holds, not what glibc happened to keep free since the last transcription, which
swung a real-audio call's RSS by 100-200 MB from one sample to the next. Each sample is
taken at the first quiet moment of its interval (the call listening, no unit in play,
nothing of the caller's open or being transcribed), when there is one: a sample that lands
on a transcription or a synthesis reads 30-50 MB high, and a minute of those moves a
slope by megabytes.
The figures: the RSS slope after warm-up (least squares, MB per 10 minutes), of the quiet
samples alone and their trend (Theil-Sen: the median of every pair's slope, which a few
high samples do not move), the slope of its floor (the lowest of each ten samples) and of each part,
frames in flight early vs late, and each turn's UserMessage → first SpeechChunk (and →
first word released) over the first turns after warm-up vs the last ones. The keys and
their targets are declared in :mod:`sandbox_bench.soak_keys`.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from sandbox.audio.audio_options import AudioOptions
from sandbox.audio.engine import AudioEngine
from sandbox.call.effects import CallState
from sandbox.call.sim_playout import SimPlayout
from sandbox.call.waterfall import FIRST_CHUNK, FIRST_SAMPLE, USER_MESSAGE
from sandbox.caller.script import parse_script
from sandbox.caller.script_runner import ScriptRunner, play_through
from sandbox.errors import UserError
from sandbox.harness.builtin import brain_url_for
from sandbox.host.audio_call import audio_call
from sandbox.host.launch import CallOptions, open_call
from sandbox.host.session import CallHost
from sandbox.malloc_tuning import give_back_free_memory
from sandbox.record.recorder import FrameRecord
from sandbox.record.session_kinds import CallMode
from sandbox_bench import pulse
from sandbox_bench.figures import Progress, median, target_lines
from sandbox_bench.mode_keys import SOAK_MODE
from sandbox_bench.own_home import own_home
from sandbox_bench.pulse_voice import PulseVoice
from sandbox_bench.redrive import script_for

_MS_PER_WORD = 350
#: Turns compared at each end of the call for the latency drift.
_ENDS = 5


@dataclass(frozen=True)
class Sample:
    """One look at the process, ``t_s`` seconds into the call."""

    t_s: float
    rss_mb: float
    #: Of which private (heap, Python's objects), mapped files, shared memory; MB.
    anon_mb: float
    file_mb: float
    shmem_mb: float
    frames_in_flight: int
    units_in_flight: int
    tasks: int
    threads: int
    #: Taken while the call was quiet (see the module doc).
    quiet: bool


@dataclass(frozen=True)
class Turn:
    """One caller turn's latency marks, host milliseconds."""

    at_s: float
    first_chunk_ms: int | None
    first_audio_ms: int | None


@dataclass
class _Watch:
    """What the soak counts of the call's frames as they cross, and its turns' marks read
    off the core's timelines (:mod:`sandbox.call.waterfall`) when it is over."""

    host: CallHost
    turns: list[Turn] = field(default_factory=list)
    frames: Counter[str] = field(default_factory=Counter)

    def frame(self, record: FrameRecord) -> None:
        self.frames[f"{record.dir} {record.type}"] += 1

    def read_turns(self) -> None:
        """Each answered caller turn's first chunk and first sample after its UserMessage."""
        for timeline in self.host.core.ledger.timelines.values():
            asked = timeline.get(USER_MESSAGE)
            if asked is None:
                continue
            chunk, audio = timeline.get(FIRST_CHUNK), timeline.get(FIRST_SAMPLE)
            self.turns.append(
                Turn(
                    asked / 1000,
                    None if chunk is None else chunk - asked,
                    None if audio is None else audio - asked,
                )
            )


@dataclass(frozen=True)
class SoakFigures:
    """A soak's figures (see the module doc); ``samples`` and ``turns`` are the raw series."""

    audio: str
    call_s: float
    warm_up_s: float
    turns_answered: int
    barge_ins: int
    backchannels: int
    idle_nudges: int
    rss_start_mb: float
    rss_end_mb: float
    rss_slope_mb_per_10min: float
    quiet_samples: int
    quiet_rss_slope_mb_per_10min: float
    quiet_rss_trend_mb_per_10min: float
    quiet_anon_trend_mb_per_10min: float
    rss_floor_slope_mb_per_10min: float
    anon_slope_mb_per_10min: float
    file_slope_mb_per_10min: float
    shmem_slope_mb_per_10min: float
    in_flight_start: float
    in_flight_end: float
    in_flight_max: int
    in_flight_growth: float
    tasks_start: int
    tasks_end: int
    first_chunk_start_ms: float | None
    first_chunk_end_ms: float | None
    first_chunk_drift_ms: float | None
    first_audio_start_ms: float | None
    first_audio_end_ms: float | None
    first_audio_drift_ms: float | None
    samples: list[Sample]
    turns: list[Turn]

    def as_json(self) -> dict[str, Any]:
        """The figures as a JSON-able dict."""
        return asdict(self)


def rss_mb() -> float:
    """This process's resident memory now, in MB (10^6 bytes)."""
    return memory_mb()["VmRSS"]


#: The lines of ``/proc/self/status`` a sample reads: resident memory, and its private,
#: file-backed and shared parts.
_MEMORY_FIELDS = ("VmRSS", "RssAnon", "RssFile", "RssShmem")


def memory_mb() -> dict[str, float]:
    """This process's resident memory and its parts now (:data:`_MEMORY_FIELDS`), in MB."""
    found: dict[str, float] = {}
    try:
        with open("/proc/self/status") as status:
            for line in status:
                name, _, value = line.partition(":")
                if name in _MEMORY_FIELDS:
                    found[name] = round(int(value.split()[0]) * 1024 / 1e6, 2)
    except OSError:
        raise UserError("the soak reads memory from /proc/self/status: run it on Linux") from None
    if len(found) < len(_MEMORY_FIELDS):
        raise UserError("this kernel's /proc/self/status does not break resident memory down")
    return found


def held_memory_mb() -> dict[str, float]:
    """:func:`memory_mb` once the malloc arenas have given their free pages back."""
    give_back_free_memory()
    return memory_mb()


def slope_per_10min(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, value) points, per 10 minutes; 0 for under two."""
    if len(points) < 2:
        return 0.0
    ts = np.array([t for t, _ in points])
    vs = np.array([v for _, v in points])
    if float(np.ptp(ts)) == 0.0:
        return 0.0
    slope = float(np.polyfit(ts, vs, 1)[0])
    return round(slope * 600, 3)


def trend_per_10min(points: list[tuple[float, float]]) -> float:
    """Theil-Sen slope of (seconds, value) points (the median of every pair's slope), per
    10 minutes; 0 for under two. Least squares follows a few samples that land on a
    transcription (30-50 MB high, all one way); the median of pairs does not."""
    ts = np.array([t for t, _ in points])
    vs = np.array([v for _, v in points])
    first, second = np.triu_indices(len(ts), 1)
    apart = ts[second] - ts[first]
    kept = apart > 0
    if not kept.any():
        return 0.0
    slopes = (vs[second] - vs[first])[kept] / apart[kept]
    return round(float(np.median(slopes)) * 600, 3)


def floor_points(points: list[tuple[float, float]], per: int = 10) -> list[tuple[float, float]]:
    """The lowest value of each run of ``per`` points, at that run's first time: a real-audio
    call's RSS swings by hundreds of MB with each synthesis and transcription, and what
    would grow under the swings is the floor they return to."""
    runs = [points[i : i + per] for i in range(0, len(points), per)]
    return [(run[0][0], min(v for _, v in run)) for run in runs if len(run) == per]


def sample_interval_s(minutes: float) -> float:
    """About a hundred samples a call, one every 1 to 10 seconds."""
    return min(10.0, max(1.0, minutes * 60 / 100))


def warm_up_s(minutes: float) -> float:
    """The first fifth of the call, at most two minutes: models, caches and pools settle."""
    return min(120.0, minutes * 60 / 5)


async def _sample(
    host: CallHost, every_s: float, into: list[Sample], quiet: Callable[[], bool]
) -> None:
    """Look at the process once every ``every_s`` seconds, at the interval's first quiet
    moment if it has one, until cancelled."""
    start = time.monotonic()
    for tick in itertools.count(1):
        end = start + tick * every_s
        while not quiet() and time.monotonic() < end:
            await asyncio.sleep(0.02)
        calm = quiet()
        memory = await asyncio.to_thread(held_memory_mb)  # the trim takes ~10 ms
        writer = host.recorder.writer
        backlog = writer.backlog if writer is not None else 0
        into.append(
            Sample(
                t_s=round(time.monotonic() - start, 1),
                rss_mb=memory["VmRSS"],
                anon_mb=memory["RssAnon"],
                file_mb=memory["RssFile"],
                shmem_mb=memory["RssShmem"],
                frames_in_flight=backlog + host.backlog,
                units_in_flight=len(host.core.in_play),
                tasks=len(asyncio.all_tasks()),
                threads=threading.active_count(),
                quiet=calm,
            )
        )
        await asyncio.sleep(max(0.0, end - time.monotonic()))


@asynccontextmanager
async def _call(
    audio: str, options: CallOptions, url: str
) -> AsyncIterator[tuple[CallHost, Callable[[], bool]]]:
    """The call, and whether it is quiet now (see the module doc)."""
    if audio == "sim":
        host = await open_call(options, url, SimPlayout(ms_per_word=_MS_PER_WORD))
        yield host, lambda: _quiet(host)
        return
    engine = AudioEngine(AudioOptions())  # the default devices: the virtual ones
    await asyncio.to_thread(engine.load)
    async with audio_call(options, url, engine) as host:
        # heard_out(0): every block so far is heard and nothing of the caller's is open.
        yield host, lambda: _quiet(host) and engine.heard_out(0)


def _quiet(host: CallHost) -> bool:
    """The call listens and no unit is in play."""
    return host.core.state is CallState.LISTENING and not host.core.in_play


async def measure_soak(minutes: float, audio: str, progress: Progress) -> SoakFigures:
    """Run one call of ``minutes`` (``audio`` "sim" or "real") and measure it."""
    if audio == "real":
        pulse.ensure()
    every_s = sample_interval_s(minutes)
    # Three times the turns the minutes need: the call hangs up at the deadline, not the end.
    script = parse_script(script_for(minutes * 3), "the soak's caller")
    samples: list[Sample] = []
    with own_home():
        options = CallOptions(
            builtin="concierge", recording=CallMode.SIM if audio == "sim" else CallMode.AUDIO
        )
        async with brain_url_for(options) as url, _call(audio, options, url) as (host, quiet):
            watch = _Watch(host)
            host.on_frame.append(watch.frame)
            caller = PulseVoice() if audio == "real" else None
            runner = ScriptRunner(host, script, caller=caller)
            progress(f"  a {minutes:g}-minute {audio} call, sampled every {every_s:g} s")
            sampler = asyncio.create_task(_sample(host, every_s, samples, quiet))
            deadline = asyncio.get_running_loop().call_later(minutes * 60, host.hang_up)
            try:
                await play_through(host, runner)
            finally:
                deadline.cancel()
                sampler.cancel()
            host.recorder.finish(host.core, host.now(), script_notes=runner.notes)
            call_s = host.now() / 1000
            watch.read_turns()
    return _figures(audio, minutes, call_s, samples, watch)


def _figures(
    audio: str, minutes: float, call_s: float, samples: list[Sample], watch: _Watch
) -> SoakFigures:
    warm = warm_up_s(minutes)
    settled = [s for s in samples if s.t_s >= warm] or samples
    quarter = max(1, len(settled) // 4)
    early, late = settled[:quarter], settled[-quarter:]
    turns = [t for t in watch.turns if t.at_s >= warm]
    ends = max(1, min(_ENDS, len(turns) // 3))

    def mean_in_flight(part: list[Sample]) -> float:
        return round(statistics.fmean(s.frames_in_flight for s in part), 2)

    def ends_of(key: str) -> tuple[float | None, float | None, float | None]:
        values = [v for t in turns if (v := getattr(t, key)) is not None]
        start, end = median(values[:ends]), median(values[-ends:])
        drift = None if start is None or end is None else round(end - start, 1)
        return start, end, drift

    chunk, first_audio = ends_of("first_chunk_ms"), ends_of("first_audio_ms")
    rss = [(s.t_s, s.rss_mb) for s in settled]

    calm = [s for s in settled if s.quiet]

    def slope_of(part: str) -> float:
        return slope_per_10min([(s.t_s, getattr(s, part)) for s in settled])

    def trend_of(part: str) -> float:
        return trend_per_10min([(s.t_s, getattr(s, part)) for s in calm])

    frames = watch.frames
    in_flight_start, in_flight_end = mean_in_flight(early), mean_in_flight(late)
    return SoakFigures(
        audio=audio,
        call_s=round(call_s, 1),
        warm_up_s=warm,
        turns_answered=len(watch.turns),
        barge_ins=frames["out interruption"],
        backchannels=len(watch.host.core.ledger.backchannels),
        idle_nudges=frames["out user_idle"],
        rss_start_mb=early[0].rss_mb,
        rss_end_mb=late[-1].rss_mb,
        rss_slope_mb_per_10min=slope_per_10min(rss),
        quiet_samples=len(calm),
        quiet_rss_slope_mb_per_10min=slope_per_10min([(s.t_s, s.rss_mb) for s in calm]),
        quiet_rss_trend_mb_per_10min=trend_of("rss_mb"),
        quiet_anon_trend_mb_per_10min=trend_of("anon_mb"),
        rss_floor_slope_mb_per_10min=slope_per_10min(floor_points(rss)),
        anon_slope_mb_per_10min=slope_of("anon_mb"),
        file_slope_mb_per_10min=slope_of("file_mb"),
        shmem_slope_mb_per_10min=slope_of("shmem_mb"),
        in_flight_start=in_flight_start,
        in_flight_end=in_flight_end,
        in_flight_max=max(s.frames_in_flight for s in samples),
        in_flight_growth=round(max(0.0, in_flight_end - in_flight_start), 2),
        tasks_start=early[0].tasks,
        tasks_end=late[-1].tasks,
        first_chunk_start_ms=chunk[0],
        first_chunk_end_ms=chunk[1],
        first_chunk_drift_ms=chunk[2],
        first_audio_start_ms=first_audio[0],
        first_audio_end_ms=first_audio[1],
        first_audio_drift_ms=first_audio[2],
        samples=samples,
        turns=watch.turns,
    )


def soak_table(figures: dict[str, Any]) -> str:
    """The figures as lines, each beside its target."""
    head = (
        f"soak, a {figures['call_s']} s {figures['audio']} call: {figures['turns_answered']} "
        f"turns answered, {figures['barge_ins']} barge-ins, {figures['backchannels']} "
        f"backchannels, {figures['idle_nudges']} idle nudges; after {figures['warm_up_s']:g} s "
        f"of warm-up RSS {figures['rss_start_mb']} → {figures['rss_end_mb']} MB (per 10 min: "
        f"{figures['quiet_samples']} quiet samples' slope "
        f"{figures['quiet_rss_slope_mb_per_10min']}, their median-of-pairs trend "
        f"{figures['quiet_rss_trend_mb_per_10min']} (private "
        f"{figures['quiet_anon_trend_mb_per_10min']}), its floor "
        f"{figures['rss_floor_slope_mb_per_10min']}, private "
        f"{figures['anon_slope_mb_per_10min']}, files {figures['file_slope_mb_per_10min']}, "
        f"shared {figures['shmem_slope_mb_per_10min']} MB), frames in "
        f"flight {figures['in_flight_start']} → {figures['in_flight_end']} (max "
        f"{figures['in_flight_max']}), tasks {figures['tasks_start']} → {figures['tasks_end']}, "
        f"first chunk {figures['first_chunk_start_ms']} → {figures['first_chunk_end_ms']} ms, "
        f"first audio {figures['first_audio_start_ms']} → {figures['first_audio_end_ms']} ms"
    )
    return "\n".join([head, *target_lines(figures, SOAK_MODE.bounds())])
