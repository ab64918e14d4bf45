"""One simulated call of a load run: the caller script through the real call core and codec.

Each call has its own :class:`~sandbox.host.warp.WarpClock` under a simulated playout
(unless ``realtime``):
the waits for words, silences and idle nudges are skipped rather than slept, while every
answer the brain owes runs on real time (see warp.py). So a call's words play at the
script's speaking rate on its own clock, many calls share one event loop without one's
waits holding another up, and a run of N calls takes the brain's time, not N times the
calls' spoken length.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sandbox.call.sim_playout import SimPlayout
from sandbox.caller.script import DEFAULT_MS_PER_WORD, Script
from sandbox.caller.script_runner import STEP_TIMEOUT_S, ScriptRunner, play_through
from sandbox.check.wirelog import WireLog
from sandbox.host.launch import CallNotPlaced, CallOptions, host_for, open_call
from sandbox.host.session import CallHost
from sandbox.host.warp import WarpClock
from sandbox.load.call_result import CRASHED, CallResult, classify
from sandbox.load.frame_latency import LatencyWatch
from sandbox.load.shared_relay import SharedRelay
from sandbox.record.report import Report

log = logging.getLogger(__name__)

#: The caller played when none is named: two turns, a barge-in, a hang-up.
DEFAULT_SCRIPT = Path(__file__).with_name("caller.toml")


@dataclass(frozen=True)
class Target:
    """What every call of a run dials and plays. ``relay``: the shared relay socket, or
    None to dial one socket per call. ``record``: save each call as a session."""

    brain_url: str
    script: Script
    relay: SharedRelay | None = None
    record: bool = True
    step_timeout_s: float = STEP_TIMEOUT_S
    #: Play every call on the wall clock, as ``sandbox call --audio sim`` does, rather
    #: than skipping its dead time: N calls at once then load the brain as N callers would.
    realtime: bool = False

    @property
    def ms_per_word(self) -> int:
        """The script's speaking rate, or ``sandbox call``'s default."""
        return self.script.ms_per_word or DEFAULT_MS_PER_WORD


async def place_call(
    index: int, target: Target, on_first_chunk: Callable[[float], None] | None = None
) -> CallResult:
    """Dial, play the script to its end, and judge the call's frames; never raises for
    anything the brain does (a bug of ours is a ``crashed`` call, logged).
    ``on_first_chunk`` is told each first-chunk latency as it is measured."""
    options = CallOptions(
        brain_url=target.brain_url,
        relay=target.relay is not None,
        recording="sim" if target.record else None,
    )
    playout = SimPlayout(ms_per_word=target.ms_per_word)
    warp = None if target.realtime else WarpClock()
    try:
        if target.relay is not None:
            session_id = str(uuid.uuid4())
            link = target.relay.link(session_id)
            host = host_for(options, link, session_id, target.brain_url, playout, warp=warp)
        else:
            host = await open_call(options, target.brain_url, playout, warp=warp)
    except CallNotPlaced as failed:
        report = failed.recorder.finish(failed.core, 0)
        return _result(report, CallResult(index, failed.core.session_id), [])
    try:
        return await _played(index, host, target, LatencyWatch(on_first_chunk=on_first_chunk))
    except Exception as exc:
        log.exception("load call %d (session %s) failed", index, host.core.session_id)
        return CallResult(index, host.core.session_id, detail=str(exc), errors=[CRASHED])


async def _played(index: int, host: CallHost, target: Target, watch: LatencyWatch) -> CallResult:
    host.on_frame.append(watch)
    runner = ScriptRunner(host, target.script, step_timeout_s=target.step_timeout_s)
    try:
        await play_through(host, runner)
    finally:
        report = host.recorder.finish(host.core, host.now(), script_notes=runner.notes)
    result = CallResult(
        index,
        host.core.session_id,
        first_chunk_ms=watch.first_chunk_ms,
        finalize_ms=watch.finalize_ms,
        findings=WireLog(host.recorder.frames).findings,
    )
    return _result(report, result, runner.notes)


def _result(report: Report, result: CallResult, notes: list[str]) -> CallResult:
    """Fill in how the call ended and classify what went wrong."""
    codes = [e.code for e in report.errors if e.dir == "in"]
    result.outcome = report.outcome
    result.ended_by = report.ended_by
    result.detail = report.end_detail
    result.errors = classify(
        result.ended_by,
        codes,
        stalled=bool(report.stalls),
        gave_up=any("gave up waiting" in note for note in notes),
    )
    return result
