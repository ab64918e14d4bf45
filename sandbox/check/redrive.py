"""Re-driving a saved session: its caller side played again, against any brain.

The session's caller side becomes a caller script (:mod:`sandbox.replay.caller_script`):
each turn, typed turn, backchannel and barge-in (at the same heard word of the reply, not
the same millisecond), app RTVI frame and idle silence. It is played through the real call
core with simulated playout at the original's speaking rate, recorded as a new session that
names the original, and compared with it on heard truth (:mod:`sandbox.replay.diff`), with
the conformance checker's findings on the new brain's frames.

Playout runs on a :class:`~sandbox.host.warp.WarpClock`: the waits for words, silences and
idle nudges are skipped, while the brain's own answers run on real time. ``realtime=True``
keeps wall-clock pacing throughout, for brains whose own timing matters.
"""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.call.sim_playout import SimPlayout
from sandbox.check.wirelog import WireLog
from sandbox.errors import UserError
from sandbox.harness.builtin import brain_url_for
from sandbox.host.launch import CallOptions, open_call
from sandbox.host.script import parse_script
from sandbox.host.script_runner import ScriptRunner, play_through
from sandbox.host.warp import WarpClock
from sandbox.record.export import session_report
from sandbox.record.store import SessionStore
from sandbox.replay.caller_script import caller_steps, script_toml, speaking_rate
from sandbox.replay.diff import Diff, compare

#: The speaking rate when the original's is not known (a call with real audio).
REDRIVE_MS_PER_WORD = 350


@dataclass(frozen=True)
class Redrive:
    """A re-drive's outcome: the new session and how it compares with the original."""

    original: str
    session_id: str
    diff: Diff


async def redrive(
    session: str,
    brain_url: str | None,
    *,
    builtin: str = "concierge",
    ignore_text: bool = False,
    realtime: bool = False,
) -> Redrive:
    """Play ``session``'s caller side against ``brain_url`` (None: the built-in brain)."""
    with SessionStore() as store:
        row = store.find(session)
        events = store.events(row.id)
        steps = caller_steps(store.frames(row.id), events)
        before = session_report(store, row)
    if not steps:
        raise UserError(f"session {row.id[:12]} has no caller side to play again")
    script = parse_script(script_toml(steps), f"session {row.id[:12]}")
    options = CallOptions(brain_url=brain_url, builtin=builtin, recording="sim", redrive_of=row.id)
    async with brain_url_for(options) as url:
        playout = SimPlayout(ms_per_word=speaking_rate(events) or REDRIVE_MS_PER_WORD)
        host = await open_call(options, url, playout, warp=None if realtime else WarpClock())
        runner = ScriptRunner(host, script)
        try:
            await play_through(host, runner)
        finally:
            after = host.recorder.finish(host.core, host.now(), script_notes=runner.notes)
    findings = [f"{f.rule.section}: {f.detail}" for f in WireLog(host.recorder.frames).findings]
    return Redrive(
        row.id, host.core.session_id, compare(before, after, findings, ignore_text=ignore_text)
    )
