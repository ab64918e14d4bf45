"""End of the caller's speech at the microphone → the bot's first audio at the speaker, timed
from outside the process that answers, the way a caller meets it.

The app (``sandbox run`` in a terminal of its own, AEC on, against the fixed-reply brain) and,
with ``--peer``, Pipecat fully local (``peer_live.py``) are driven through the same
PulseAudio virtual microphone and speaker with the same espeak-ng caller line the peer's own
harness uses, one after the other, by one :class:`~sandbox.bench.probe.DeviceProbe`. Per
turn: wait for a quiet speaker, play the line into the microphone, find the first sound on
the speaker after it; the reply plays out before the next turn. The first turns warm the
system up and are not counted. The app's calls are kept in a data directory of the stage's
own, and each is audited afterwards (its heard text against its speaker leg).
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sandbox.audio.endpointer import PATIENCE_DEFAULT
from sandbox.bench import pulse
from sandbox.bench.app_process import running_app, wait_started
from sandbox.bench.audit import audit_stored_sessions
from sandbox.bench.figures import Progress, fmt_ms, median
from sandbox.bench.outside_floor import FloorRun, measure_floor
from sandbox.bench.own_home import own_home
from sandbox.bench.peer_process import BEST, ensure_peer, running_peer
from sandbox.bench.probe import RATE, DeviceProbe, loop_latency_s, spoken_line, wait_quiet
from sandbox.errors import UserError

#: The peer harness's caller line, voice and rate (``pipecat_bench.CALLER_TEXT``).
CALLER_TEXT = "Hi, I would like to check the status of my order, please."
CALLER_VOICE, CALLER_WPM = "en-us", 170
#: Longest wait for a reply's first audio; for the app's first call, models load too.
REPLY_S, FIRST_REPLY_S = 15.0, 60.0
#: Turns at the start of a run that warm the system up, not counted.
WARMUP = 1


@dataclass(frozen=True)
class DeviceTurn:
    """One measured turn: end of speech → first audio, and → the turn reaching the brain."""

    to_first_audio_ms: float
    to_brain_ms: float | None


@dataclass(frozen=True)
class DeviceRun:
    """One system's measured turns."""

    who: str
    patience: int | None
    turns: tuple[DeviceTurn, ...]
    missed: int  # turns with no reply in time

    @property
    def first_audio_ms(self) -> float | None:
        """Median end of speech → first audio."""
        return median([t.to_first_audio_ms for t in self.turns])

    @property
    def first_audio_spread_ms(self) -> tuple[float, float] | None:
        """(min, max) end of speech → first audio."""
        values = [t.to_first_audio_ms for t in self.turns]
        return (round(min(values)), round(max(values))) if values else None

    @property
    def to_brain_ms(self) -> float | None:
        """Median end of speech → the turn at the brain (the app's UserMessage, the peer's
        LLM context)."""
        return median([t.to_brain_ms for t in self.turns if t.to_brain_ms is not None])


def caller_line() -> tuple[np.ndarray, int]:
    """The caller's line at the probe's rate, and the index one past its last voiced sample."""
    line, _start, end = spoken_line(CALLER_TEXT, CALLER_VOICE, CALLER_WPM)
    return line, end


async def _turns(
    probe: DeviceProbe,
    loop_s: float,
    turns: int,
    at_brain: Callable[[float], float | None],
    progress: Progress,
    who: str,
) -> tuple[list[DeviceTurn], int]:
    """Play the caller's line ``WARMUP + turns`` times; time each reply."""
    line, voice_end = caller_line()
    marks: list[tuple[int, int]] = []  # (output index of the voice's end, input index of sound)
    missed = 0
    for index in range(WARMUP + turns):
        await wait_quiet(probe, 30.0)
        listen_from = probe.received
        end = probe.play(line) + voice_end
        wait = FIRST_REPLY_S if index == 0 else REPLY_S
        deadline = time.monotonic() + len(line) / RATE + wait
        sound = None
        while sound is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # only how soon it is seen: the time is the sample's
            sound = probe.first_sound(listen_from)
        warm = index < WARMUP
        if sound is None:
            if warm:
                raise UserError(f"{who} did not answer the first turn in {wait:.0f} s")
            missed += 1
            progress(f"  {who}: turn {index + 1 - WARMUP}/{turns}: no reply in {wait:.0f} s")
            continue
        if not warm:
            marks.append((end, sound))
            at = (probe.in_clock.at(sound) - probe.out_clock.at(end) - loop_s) * 1000
            progress(f"  {who}: turn {index + 1 - WARMUP}/{turns}: first audio {fmt_ms(at)}")
    # Offsets are final only now (the least delayed callback of the whole run).
    measured: list[DeviceTurn] = []
    for end, sound in marks:
        spoken_end = probe.out_clock.at(end) + loop_s / 2  # the probe's own path, split evenly
        first = probe.in_clock.at(sound) - loop_s / 2
        brain = at_brain(spoken_end)
        measured.append(
            DeviceTurn(
                to_first_audio_ms=round((first - spoken_end) * 1000, 1),
                to_brain_ms=None if brain is None else round((brain - spoken_end) * 1000, 1),
            )
        )
    return measured, missed


async def measure_app(
    probe: DeviceProbe,
    loop_s: float,
    patience: int,
    turns: int,
    progress: Progress,
    floor: tuple[int, int] = (0, 0),
) -> tuple[DeviceRun, FloorRun | None]:
    """``sandbox run`` at ``patience``: ``turns`` measured turns, then ``floor`` =
    (backchannels, barge-ins) over its replies when any."""
    who = f"app (patience {patience})"
    floor_run = None
    with tempfile.TemporaryDirectory(prefix="sandbox-bench-") as folder:
        async with running_app(patience, Path(folder) / "report.json") as arrivals:
            await wait_started(arrivals, who, FIRST_REPLY_S)

            def at_brain(after: float) -> float | None:
                found = arrivals.first_after(after - 0.5)
                return None if found is None else found[0]

            measured, missed = await _turns(probe, loop_s, turns, at_brain, progress, who)
            if any(floor):
                floor_run = await measure_floor(probe, loop_s, arrivals, *floor, progress)
    return DeviceRun(who, patience, tuple(measured), missed), floor_run


async def measure_peer(
    probe: DeviceProbe, loop_s: float, turns: int, progress: Progress, strategy: str = BEST
) -> DeviceRun:
    """Pipecat fully local with ``strategy``: ``turns`` measured turns."""
    python = await asyncio.to_thread(ensure_peer, progress)
    who = f"Pipecat ({strategy})"
    with tempfile.TemporaryDirectory(prefix="sandbox-peer-") as folder:
        async with running_peer(python, strategy, Path(folder) / "events.jsonl") as events:

            def at_brain(after: float) -> float | None:
                return events.turn_after(after - 0.5)

            measured, missed = await _turns(probe, loop_s, turns, at_brain, progress, who)
    return DeviceRun(who, None, tuple(measured), missed)


@dataclass(frozen=True)
class DeviceFigures:
    """The app at each patience, and the peer when it was run."""

    loop_ms: float
    runs: tuple[DeviceRun, ...]
    peer: DeviceRun | None
    #: The audit of the app's sessions (:func:`~sandbox.bench.audit.audit_stored_sessions`).
    audit: dict[str, object]
    floor: FloorRun | None = None
    #: How long the peer's run took, its setup included (s): the full run's budget is the
    #: app's own, and the peer's share is reported apart.
    peer_s: float | None = None

    def at(self, patience: int) -> DeviceRun | None:
        """The app's run at ``patience``."""
        return next((r for r in self.runs if r.patience == patience), None)


async def measure_devices(
    patiences: tuple[int, ...],
    turns: int,
    peer: bool,
    progress: Progress,
    floor: tuple[int, int] = (0, 0),
) -> DeviceFigures:
    """The app at each of ``patiences`` (``turns`` at the default, half as many at the
    others; the peer ``turns``), through the virtual devices, and
    ``floor`` = (backchannels, barge-ins) over the app's replies at the default patience
    (when it is one of ``patiences``)."""
    try:
        await asyncio.to_thread(pulse.ensure)
    except pulse.PulseUnavailable as exc:
        raise UserError(f"timing at the devices needs PulseAudio: {exc}") from None
    loop_s = await asyncio.to_thread(loop_latency_s)
    progress(f"  the probe's own loop (played → recorded): {loop_s * 1000:.0f} ms, taken off")
    runs: list[DeviceRun] = []
    peer_run: DeviceRun | None = None
    peer_s: float | None = None
    floor_run: FloorRun | None = None
    # The app's calls go to a data directory of the stage's own, whose sessions are audited.
    with own_home(), DeviceProbe() as probe:
        for patience in (*patiences, None) if peer else patiences:
            if patience is None:
                began = time.monotonic()
                run = peer_run = await measure_peer(probe, loop_s, turns, progress)
                peer_s = round(time.monotonic() - began, 1)
            else:
                # The floor over the replies of the app at the default patience, warmed up.
                here = floor if patience == PATIENCE_DEFAULT and floor_run is None else (0, 0)
                # The other patiences' medians need fewer turns than the default's worst.
                count = turns if patience == PATIENCE_DEFAULT else max(1, turns // 2)
                run, floor_here = await measure_app(probe, loop_s, patience, count, progress, here)
                if floor_here is not None:
                    floor_run = floor_here
                    progress(
                        f"  backchannel gap {fmt_ms(floor_run.backchannel_gap_ms)}, barge-in "
                        f"onset → silence {fmt_ms(floor_run.onset_to_silence_ms)} (at the speaker)"
                    )
                runs.append(run)
            progress(
                f"  {run.who}: median {fmt_ms(run.first_audio_ms)} "
                f"(turn at the brain {fmt_ms(run.to_brain_ms)})"
            )
        audit = await asyncio.to_thread(audit_stored_sessions, progress)
    loop_ms = round(loop_s * 1000, 1)
    return DeviceFigures(loop_ms, tuple(runs), peer_run, audit, floor_run, peer_s)
