"""End of the caller's speech at the microphone → the bot's first audio at the speaker, timed
from outside the process that answers, the way a caller meets it.

The app (``sandbox run`` in a terminal of its own, AEC on, against the fixed-reply brain) and,
with ``--peer``, Pipecat fully local (``peer_live.py``) in both its configurations (its 0.6 s
speech timeout and its default, Smart Turn v3) are driven through the same PulseAudio
virtual microphone and speaker, one after the other, by one
:class:`~sandbox_bench.probe.DeviceProbe`. The caller's turns are drawn once a run from the
set of callers (:mod:`sandbox_bench.caller_set`: questions, requests, statements, short
answers, spelled items, names, in several voices at two rates), so every system hears the
same turns in the same order. Per turn: wait for a quiet speaker, play the turn into the
microphone, find the first sound on the speaker after it; the reply plays out before the
next turn. The first turns warm the system up and are not counted. The app's calls are kept
in a data directory of the stage's own, and each is audited afterwards (its heard text
against its speaker leg); each app turn's close reason comes from the call's report.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

from sandbox.audio.endpointer import PATIENCE_DEFAULT
from sandbox.brains.fixed import FixedReply
from sandbox.errors import UserError
from sandbox.line.profile import DEFAULT_LINE
from sandbox.record.report import ReportError, report_from_json
from sandbox_bench import pulse
from sandbox_bench.app_process import BrainFactory, running_app, wait_started
from sandbox_bench.audit import audit_stored_sessions
from sandbox_bench.caller_set import CallerSet, draw, load_caller_set
from sandbox_bench.caller_voices import SpokenTurn, render
from sandbox_bench.figures import Progress, fmt_ms, median
from sandbox_bench.outside_floor import ENGLISH_FLOOR, FloorLines, FloorRun, measure_floor
from sandbox_bench.own_home import own_home
from sandbox_bench.peer_process import BEST, DEFAULT, ensure_peer, running_peer
from sandbox_bench.probe import RATE, DeviceProbe, loop_latency_s, wait_quiet

#: Longest wait for a reply's first audio (the slowest reply either system gave in a run
#: came 3.5 s after the voice ended; a turn unheard cost 15 s when this was 15 s); for each
#: system's first turn, models load too.
REPLY_S, FIRST_REPLY_S = 8.0, 60.0
#: Turns at the start of a run that warm the system up, not counted.
WARMUP = 1
#: The app at a patience other than the default takes this share of the default's turns
#: (the start of the same sequence): its median and window, not a worst turn or classes.
OTHER_PATIENCE_SHARE = 4
#: Both of the peer's configurations, in the order run.
PEER_STRATEGIES = (BEST, DEFAULT)


@dataclass(frozen=True)
class DeviceTurn:
    """One measured turn: its caller turn (class, text, voice), end of speech → first audio,
    and → the turn reaching the brain; for the app, how its endpointer closed the turn and
    what the brain was sent."""

    to_first_audio_ms: float
    to_brain_ms: float | None
    kind: str
    text: str
    voice: str
    closed_by: str | None = None
    heard: str | None = None
    #: How the app mended the turn's transcript before the brain got it (its report's
    #: ``turn_mends``; None: as Whisper wrote it, or the peer's).
    mend: str | None = None


@dataclass(frozen=True)
class DeviceRun:
    """One system's measured turns (``strategy``: the peer's configuration)."""

    who: str
    patience: int | None
    turns: tuple[DeviceTurn, ...]
    missed: tuple[str, ...]  # the class of each turn with no reply in time
    strategy: str | None = None
    #: The process's peak resident memory over the whole session (MB), read as it exited.
    peak_rss_mb: float | None = None
    #: The session's first caller turn (a warm-up turn when there are any); None when it had
    #: no reply.
    first_turn: DeviceTurn | None = None

    @property
    def closes(self) -> dict[str, int]:
        """How many turns each close reason closed (the app's; empty for the peer)."""
        return dict(Counter(t.closed_by for t in self.turns if t.closed_by is not None))

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


@dataclass(frozen=True)
class AtBrain:
    """A turn reaching the brain: when (monotonic seconds), and for the app which of the
    call's UserMessages it was (1 for the first, as its caller turns count) and its text."""

    t: float
    ordinal: int | None = None
    text: str | None = None


async def _turns(
    probe: DeviceProbe,
    loop_s: float,
    lines: Sequence[SpokenTurn],
    warmup: Sequence[SpokenTurn],
    at_brain: Callable[[float], AtBrain | None],
    progress: Progress,
    who: str,
) -> tuple[list[tuple[DeviceTurn, int | None]], tuple[str, ...], DeviceTurn | None]:
    """Play the ``warmup`` turns, then ``lines``; time each reply. Returns each measured
    turn with the ordinal of its message at the brain, the class of each that had no reply,
    and the session's first turn (warm-up or not; None when it had no reply)."""
    marks: list[tuple[SpokenTurn, int, int, int]] = []  # (turn, end, sound, its place)
    missed: list[str] = []
    for index, line in enumerate([*warmup, *lines]):
        await wait_quiet(probe, 30.0)
        listen_from = probe.received
        end = probe.play(line.samples) + line.voice_end
        wait = FIRST_REPLY_S if index == 0 else REPLY_S
        deadline = time.monotonic() + len(line.samples) / RATE + wait
        sound = None
        while sound is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # only how soon it is seen: the time is the sample's
            sound = probe.first_sound(listen_from)
        warm = index < len(warmup)
        number = f"turn {index + 1 - len(warmup)}/{len(lines)} ({line.turn.kind})"
        if sound is None:
            if warm:
                raise UserError(f"{who} did not answer the first turn in {wait:.0f} s")
            missed.append(line.turn.kind)
            progress(f"  {who}: {number}: no reply in {wait:.0f} s")
            continue
        marks.append((line, end, sound, index))
        if not warm:
            at = (probe.in_clock.at_near(sound) - probe.out_clock.at_near(end) - loop_s) * 1000
            progress(f"  {who}: {number}: first audio {fmt_ms(at)}")
    # Offsets are final only now (the least delayed callback around each moment: a stream
    # that drops samples on a loaded machine shifts its offset from then on).
    measured: list[tuple[DeviceTurn, int | None]] = []
    session_first: DeviceTurn | None = None
    for line, end, sound, index in marks:
        # The probe's own path, split evenly.
        spoken_end = probe.out_clock.at_near(end) + loop_s / 2
        first = probe.in_clock.at_near(sound) - loop_s / 2
        brain = at_brain(spoken_end)
        turn = DeviceTurn(
            to_first_audio_ms=round((first - spoken_end) * 1000, 1),
            to_brain_ms=None if brain is None else round((brain.t - spoken_end) * 1000, 1),
            kind=line.turn.kind,
            text=line.turn.text,
            voice=line.turn.voice_label,
            heard=None if brain is None else brain.text,
        )
        if index == 0:
            session_first = turn
        if index >= len(warmup):
            measured.append((turn, None if brain is None else brain.ordinal))
    return measured, tuple(missed), session_first


class ClosedTurn(NamedTuple):
    """A caller turn as the app's report tells it: its text, how the endpointer closed it,
    and how its transcript was mended (None: as Whisper wrote it)."""

    text: str
    how: str
    mend: str | None = None


def turn_closes(report: Path) -> dict[int, ClosedTurn]:
    """How the app's call closed each caller turn, by its place among the call's caller
    turns (1 for the first), from the call's report; empty when the report is missing or
    unreadable (the figures go on without them)."""
    try:
        read = report_from_json(json.loads(report.read_text(encoding="utf-8")))
    except (OSError, ValueError, ReportError):
        return {}
    closes = dict(read.turn_closes or {})
    mends = dict(read.turn_mends or {})
    # Turn ids rise with each caller turn (the greeting has the first), as caller_turns does.
    ids = sorted(closes, key=int)
    return {
        place: ClosedTurn(text, closes[turn_id], mends.get(turn_id))
        for place, (text, turn_id) in enumerate(zip(read.caller_turns, ids, strict=False), 1)
    }


async def measure_app(
    probe: DeviceProbe,
    loop_s: float,
    patience: int,
    lines: Sequence[SpokenTurn],
    warmup: Sequence[SpokenTurn],
    progress: Progress,
    floor: tuple[int, int] = (0, 0),
    line: str = DEFAULT_LINE,
    *,
    who: str | None = None,
    brain: BrainFactory = FixedReply,
    options: Sequence[str] = (),
    floor_lines: FloorLines = ENGLISH_FLOOR,
    on_floor: Callable[[], None] | None = None,
) -> tuple[DeviceRun, FloorRun | None]:
    """``sandbox run`` at ``patience``, the caller on ``line``, with ``options`` more, dialling
    ``brain``: the ``warmup`` turns, ``lines`` measured, then ``floor`` = (backchannels,
    barge-ins) of ``floor_lines`` over its replies when any (``on_floor`` called first)."""
    if who is None:
        who = f"app (patience {patience})" if line == DEFAULT_LINE else f"app on {line}"
    floor_run = None
    with tempfile.TemporaryDirectory(prefix="sandbox-bench-") as folder:
        report = Path(folder) / "report.json"
        async with running_app(patience, report, line, brain=brain, options=options) as arrivals:
            await wait_started(arrivals, who, FIRST_REPLY_S)

            def at_brain(after: float) -> AtBrain | None:
                # Its place among the call's UserMessages, as the report places caller turns.
                for ordinal, (at, text) in enumerate(arrivals.messages, start=1):
                    if at > after - 0.5:
                        return AtBrain(at, ordinal, text)
                return None

            measured, missed, first = await _turns(
                probe, loop_s, lines, warmup, at_brain, progress, who
            )
            if any(floor):
                if on_floor is not None:
                    on_floor()
                floor_run = await measure_floor(
                    probe, loop_s, arrivals, *floor, progress, floor_lines
                )
        closes = turn_closes(report)  # written as the app quit
    if not closes:
        progress(f"  {who}: no close reasons (its report was not written)")
    turns = tuple(_as_reported(turn, closes.get(ordinal or 0)) for turn, ordinal in measured)
    for number, turn in enumerate(turns, 1):
        if closes and turn.closed_by is None:
            why = (
                "no turn reached the brain after it" if turn.heard is None else "not in its report"
            )
            progress(f"  {who}: measured turn {number} ({turn.text!r}): no close reason ({why})")
    run = DeviceRun(who, patience, turns, missed, peak_rss_mb=arrivals.peak_rss_mb)
    return replace(run, first_turn=first), floor_run


def _as_reported(turn: DeviceTurn, reported: ClosedTurn | None) -> DeviceTurn:
    """``turn`` with its close reason and mend from the call's report, if the report's turn
    is the text the brain got."""
    if reported is None or reported.text != turn.heard:
        return turn
    return replace(turn, closed_by=reported.how, mend=reported.mend)


async def measure_peer(
    probe: DeviceProbe,
    loop_s: float,
    lines: Sequence[SpokenTurn],
    warmup: Sequence[SpokenTurn],
    progress: Progress,
    strategy: str = BEST,
) -> DeviceRun:
    """Pipecat fully local with ``strategy``: the ``warmup`` turns, then ``lines`` measured."""
    python = await asyncio.to_thread(ensure_peer, progress)
    who = f"Pipecat ({strategy})"
    with tempfile.TemporaryDirectory(prefix="sandbox-peer-") as folder:
        async with running_peer(python, strategy, Path(folder) / "events.jsonl") as events:

            def at_brain(after: float) -> AtBrain | None:
                found = events.turn_after(after - 0.5)
                return None if found is None else AtBrain(found[0], text=found[1])

            measured, missed, first = await _turns(
                probe, loop_s, lines, warmup, at_brain, progress, who
            )
    turns = tuple(t for t, _ in measured)
    return DeviceRun(who, None, turns, missed, strategy, events.peak_rss_mb, first)


@dataclass(frozen=True)
class DeviceFigures:
    """The app at each patience, and the peer's configurations when they were run."""

    loop_ms: float
    runs: tuple[DeviceRun, ...]
    peers: tuple[DeviceRun, ...]
    #: The audit of the app's sessions (:func:`~sandbox_bench.audit.audit_stored_sessions`).
    audit: dict[str, object]
    floor: FloorRun | None = None
    #: How long the peer's runs took, their setup included (s): the full run's budget is the
    #: app's own, and the peer's share is reported apart.
    peer_s: float | None = None
    #: What the set's classes are (class -> its description).
    classes: dict[str, str] | None = None

    def at(self, patience: int) -> DeviceRun | None:
        """The app's run at ``patience``."""
        return next((r for r in self.runs if r.patience == patience), None)


async def prepared(
    turns: int, seed: int, progress: Progress
) -> tuple[CallerSet, Sequence[SpokenTurn], Sequence[SpokenTurn], float]:
    """PulseAudio's virtual devices up; ``turns`` caller turns drawn from the set with
    ``seed`` and spoken, and the warm-up ones; the probe's own loop (s), to take off."""
    try:
        await asyncio.to_thread(pulse.ensure)
    except pulse.PulseUnavailable as exc:
        raise UserError(f"timing at the devices needs PulseAudio: {exc}") from None
    caller_set = load_caller_set()
    # Drawn once, so every system hears the same turns in the same order; the warm-up turns
    # come from the end of the draw, so the measured ones keep its balance of classes.
    drawn = draw(caller_set, turns + WARMUP, seed)
    spoken = await asyncio.to_thread(render, drawn)
    lines, warmup = spoken[:turns], spoken[turns:]
    voices = len({line.turn.voice_label for line in lines})
    progress(
        f"  {turns} caller turns of {len({line.turn.kind for line in lines})} classes "
        f"in {voices} voices and rates (seed {seed})"
    )
    loop_s = await asyncio.to_thread(loop_latency_s)
    progress(f"  the probe's own loop (played → recorded): {loop_s * 1000:.0f} ms, taken off")
    return caller_set, lines, warmup, loop_s


async def measure_devices(
    patiences: tuple[int, ...],
    turns: int,
    peer: bool,
    progress: Progress,
    floor: tuple[int, int] = (0, 0),
    seed: int = 7,
) -> DeviceFigures:
    """The app at each of ``patiences`` (``turns`` drawn from the caller set with ``seed`` at
    the default, the first quarter of them at the others) and, with ``peer``, both of the
    peer's configurations (``turns``), through the virtual devices; then ``floor`` =
    (backchannels, barge-ins) over the app's replies at the default patience (when it is
    one of ``patiences``)."""
    caller_set, lines, warmup, loop_s = await prepared(turns, seed, progress)
    runs: list[DeviceRun] = []
    peers: list[DeviceRun] = []
    peer_s: float | None = None
    floor_run: FloorRun | None = None
    # The app's calls go to a data directory of the stage's own, whose sessions are audited.
    with own_home(), DeviceProbe() as probe:
        for patience in patiences:
            # The floor over the replies of the app at the default patience, warmed up.
            here = floor if patience == PATIENCE_DEFAULT and floor_run is None else (0, 0)
            # The other patiences' medians need fewer turns than the default's classes.
            count = turns if patience == PATIENCE_DEFAULT else -(-turns // OTHER_PATIENCE_SHARE)
            run, floor_here = await measure_app(
                probe, loop_s, patience, lines[:count], warmup, progress, here
            )
            if floor_here is not None:
                floor_run = floor_here
                progress(
                    f"  backchannel gap {fmt_ms(floor_run.backchannel_gap_ms)}, barge-in "
                    f"onset → silence {fmt_ms(floor_run.onset_to_silence_ms)} (at the speaker)"
                )
            runs.append(run)
            _said(run, progress)
        if peer:
            began = time.monotonic()
            for strategy in PEER_STRATEGIES:
                run = await measure_peer(probe, loop_s, lines, warmup, progress, strategy)
                peers.append(run)
                _said(run, progress)
            peer_s = round(time.monotonic() - began, 1)
        audit = await asyncio.to_thread(audit_stored_sessions, progress)
    loop_ms = round(loop_s * 1000, 1)
    return DeviceFigures(
        loop_ms, tuple(runs), tuple(peers), audit, floor_run, peer_s, dict(caller_set.about)
    )


def _said(run: DeviceRun, progress: Progress) -> None:
    closes = ", ".join(f"{n} {how}" for how, n in sorted(run.closes.items()))
    progress(
        f"  {run.who}: median {fmt_ms(run.first_audio_ms)} "
        f"(turn at the brain {fmt_ms(run.to_brain_ms)})" + (f"; closed {closes}" if closes else "")
    )
