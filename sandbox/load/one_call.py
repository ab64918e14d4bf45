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

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sandbox.call.core import CallCore
from sandbox.call.settings import Capabilities
from sandbox.call.sim_playout import SimPlayout
from sandbox.caller.script import DEFAULT_MS_PER_WORD, Script
from sandbox.caller.script_runner import STEP_TIMEOUT_S, ScriptRunner, play_through
from sandbox.check import rules
from sandbox.check.wirelog import DEAD_TURN_GRACE_MS, WireLog
from sandbox.host.core_records import CoreRecords
from sandbox.host.launch import CallNotPlaced, CallOptions, host_for, open_call
from sandbox.host.session import CallHost
from sandbox.host.warp import WarpClock
from sandbox.load.call_result import CRASHED, OVERLOADED, CallResult, classify
from sandbox.load.latency_watch import LatencyWatch
from sandbox.load.loop_lag import OVERLOADED_S, LoopLag
from sandbox.load.shared_relay import SharedRelay
from sandbox.record.call_report import CallEnd
from sandbox.record.session_kinds import CallMode
from sandbox.wire.tokens import KeyPair

log = logging.getLogger(__name__)

#: The caller played when none is named: two turns, a barge-in, a hang-up.
DEFAULT_SCRIPT = Path(__file__).with_name("caller.toml")
#: Calls dialing at once in a run; the others wait to start dialing. Each dial is a TCP
#: handshake, a token signed, an upgrade and a ping, and a brain's server takes only so
#: many connections at once before the rest queue in the kernel (100 by default in
#: asyncio): 2,000 dialed at once timed out by the hundred, the brain never at fault.
DIALS_AT_ONCE = 32


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
    #: The speech tier every call is set up with; None: read from disk for each call (a
    #: run reads it once: reading the voice catalog cost each call more than a millisecond).
    caps: Capabilities | None = None
    #: The key pair every call's token is signed with; None: read from disk for each call
    #: (a run reads it once: reading and checking its files cost more than the signature).
    keys: KeyPair | None = None

    @property
    def ms_per_word(self) -> int:
        """The script's speaking rate, or ``sandbox call``'s default."""
        return self.script.ms_per_word or DEFAULT_MS_PER_WORD


@dataclass(frozen=True)
class Dialing:
    """What a run's calls share while they dial: the gate that lets :data:`DIALS_AT_ONCE`
    open at a time (the rest wait their turn, their time not yet counting), and the
    loop's lateness, by which a failed dial is told to be the load generator's."""

    gate: asyncio.Semaphore
    lag: LoopLag


async def place_call(
    index: int,
    target: Target,
    on_first_chunk: Callable[[float], None] | None = None,
    dialing: Dialing | None = None,
) -> CallResult:
    """Dial, play the script to its end, and judge the call's frames; never raises for
    anything the brain does (a bug of ours is a ``crashed`` call, logged).
    ``on_first_chunk`` is told each first-chunk latency as it is measured."""
    options = CallOptions(
        brain_url=target.brain_url,
        relay=target.relay is not None,
        recording=CallMode.SIM if target.record else None,
    )
    playout = SimPlayout(ms_per_word=target.ms_per_word)
    warp = None if target.realtime else WarpClock()
    try:
        if target.relay is not None:
            session_id = str(uuid.uuid4())
            link = target.relay.link(session_id)
            host = host_for(
                options, link, session_id, target.brain_url, playout, target.caps, warp=warp
            )
        elif dialing is None:
            host = await open_call(
                options, target.brain_url, playout, target.caps, warp=warp, keys=target.keys
            )
        else:
            async with dialing.gate:
                began = time.monotonic()
                try:
                    host = await open_call(
                        options, target.brain_url, playout, target.caps, warp=warp,
                        keys=target.keys,
                    )  # fmt: skip
                except CallNotPlaced as failed:
                    late = dialing.lag.worst_since(began)
                    if late < OVERLOADED_S:
                        raise
                    return _overloaded(index, failed, late)
    except CallNotPlaced as failed:  # its session was finished where the dial failed
        return _result(failed.core, CallResult(index, failed.core.session_id), [])
    watch = LatencyWatch(wall=host.wall_of_effects, now=host.now, on_first_chunk=on_first_chunk)
    try:
        return await _played(index, host, target, watch, None if dialing is None else dialing.lag)
    except Exception as exc:
        log.exception("load call %d (session %s) failed", index, host.core.session_id)
        return CallResult(index, host.core.session_id, detail=str(exc), errors=[CRASHED])


async def _played(
    index: int, host: CallHost, target: Target, watch: LatencyWatch, lag: LoopLag | None
) -> CallResult:
    host.on_effect.append(watch)
    kept = CoreRecords(host)
    runner = ScriptRunner(host, target.script, step_timeout_s=target.step_timeout_s)
    began = time.monotonic()
    try:
        await play_through(host, runner)
    finally:
        if host.recorder.writer is not None:  # kept: the whole report, for the store
            host.recorder.finish(host.core, host.now(), script_notes=runner.notes)
    findings = WireLog(kept.records).findings
    # A chunk the brain sent before it read an Interruption is timed when this process reads
    # it: a loop later than the rule's grace would make the brain's frames in flight read
    # as speech for a dead turn. Those are set aside, counted, never the brain's.
    late = lag is not None and lag.worst_since(began) * 1000 > DEAD_TURN_GRACE_MS
    unjudged = [f for f in findings if late and f.rule is rules.DEAD_TURN_STOPS]
    result = CallResult(
        index,
        host.core.session_id,
        first_chunk_ms=watch.first_chunk_ms,
        finalize_ms=watch.finalize_ms,
        findings=[f for f in findings if f not in unjudged],
        unjudged=len(unjudged),
    )
    return _result(host.core, result, runner.notes)


def _overloaded(index: int, failed: CallNotPlaced, late_s: float) -> CallResult:
    """A dial that failed while this process's loop ran ``late_s`` late: the load
    generator's failure, said as such (the brain's words for it would blame the brain)."""
    result = _result(failed.core, CallResult(index, failed.core.session_id), [])
    result.errors = [OVERLOADED]
    result.detail = (
        f"not dialed in time: this load generator's event loop ran {late_s:.1f} s late while "
        f"the call dialed, so the brain never had its chance ({failed})"
    )
    return result


def _result(core: CallCore, result: CallResult, notes: list[str]) -> CallResult:
    """Fill in how the call ended and classify what went wrong, as its report says (read
    off the core: a call kept nowhere has no report built)."""
    end = CallEnd.of(core)
    codes = [e.code for e in core.ledger.errors if e.dir == "in"]
    result.outcome = end.outcome
    result.ended_by = end.ended_by
    result.detail = end.end_detail
    result.errors = classify(
        result.ended_by,
        codes,
        stalled=bool(core.ledger.stalls),
        gave_up=any("gave up waiting" in note for note in notes),
    )
    return result
