"""Re-driving a saved session: its caller side played again, against any brain.

The session's caller side becomes a caller script (:mod:`sandbox.replay.caller_script`):
each turn, typed turn, backchannel and barge-in (at the same heard word of the reply, not
the same millisecond), app RTVI frame and idle silence. It is played through the real call
core with simulated playout at the original's speaking rate, recorded as a new session that
names the original, and compared with it on heard truth (:mod:`sandbox.replay.diff`), with
the conformance checker's findings on the new brain's frames.

Playout runs on a :class:`~sandbox.host.warp.WarpClock`: the waits for words, silences and
idle nudges are skipped, while the brain's own work runs on real time, including the waits
the original showed between closing a turn's units and opening another for it (a tool call
behind a filler: :func:`~sandbox.host.warp.work_gaps`). ``realtime=True`` keeps wall-clock
pacing throughout. A caller who hung up over the bot hangs up at the same word of its reply,
and the call starts with the original's idle wait (its first nudge shows it), so each
silence meets its nudge.

:func:`redrive_audio` plays a real-audio session's own recorded caller audio instead
(:mod:`sandbox.replay.caller_audio`), in real time through the real listening path, so
endpointing, barge-in decisions and Whisper are exercised again, not just the brain.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from sandbox.audio.audio_options import AudioOptions, phone_line
from sandbox.audio.engine import AudioEngine
from sandbox.audio.script_mic import ScriptMic
from sandbox.call.settings import Settings
from sandbox.call.sim_playout import SimPlayout
from sandbox.caller.script import Script, Step, parse_script
from sandbox.caller.script_runner import ScriptRunner, play_through
from sandbox.caller.voice_caller import RecordedVoice
from sandbox.check.wirelog import WireLog
from sandbox.errors import UserError
from sandbox.harness.builtin import brain_url_for
from sandbox.host.audio_call import audio_call
from sandbox.host.core_records import CoreRecords
from sandbox.host.launch import CallOptions, open_call
from sandbox.host.session import CallHost
from sandbox.host.warp import WarpClock, hold_for, work_gaps
from sandbox.line.profile import DEFAULT_LINE, PROFILES, LineProfile
from sandbox.record.leg_files import leg_path
from sandbox.record.legs import MIC, read_leg
from sandbox.record.report import Report
from sandbox.record.session_kinds import CallMode
from sandbox.record.store import SessionRow, SessionStore, StoredEvent, short_id
from sandbox.record.stored_call import StoredCall
from sandbox.replay.caller_audio import SpokenLine, cut_clips, spoken_lines
from sandbox.replay.caller_script import (
    caller_steps,
    hang_up_over_bot,
    idle_wait,
    script_toml,
    speaking_rate,
)
from sandbox.replay.diff import Diff, compare

#: The speaking rate when the original's is not known (a call with real audio).
REDRIVE_MS_PER_WORD = 350
#: Steps the caller speaks (a clip each in an audio re-drive).
_SPOKEN = ("say", "barge_in", "backchannel")


@dataclass(frozen=True)
class Redrive:
    """A re-drive's outcome: the new session and how it compares with the original."""

    original: str
    session_id: str
    diff: Diff


@dataclass(frozen=True)
class _Original:
    """What a re-drive plays and compares against."""

    row: SessionRow
    events: Sequence[StoredEvent]
    script: Script
    report: Report
    #: The quiet the brain's side of the link needs before the warp clock skips (warp.py).
    hold_s: float
    #: The caller's settings the original started with, as far as they show (the idle wait).
    settings: Settings


def _original(session: str) -> _Original:
    with SessionStore() as store:
        call = StoredCall.load(store, store.find(session))
    row, events, report = call.row, call.events, call.report
    steps = caller_steps(call.frames, call.records)
    if not steps:
        raise UserError(f"session {short_id(row.id)} has no caller side to play again")
    script = parse_script(script_toml(steps), f"session {short_id(row.id)}")
    words = hang_up_over_bot(events)
    if words is not None:  # no script step says "at word N": the re-drive's own ending
        script = replace(script, steps=(*script.steps, Step("end", after_words=words, now=True)))
    gaps = work_gaps(call.timed_records)
    idle = idle_wait(events)
    settings = Settings() if idle is None else Settings(idle_ms=idle)
    return _Original(row, events, script, report, hold_for(gaps), settings)


async def redrive(
    session: str,
    brain_url: str | None,
    *,
    builtin: str = "concierge",
    ignore_text: bool = False,
    realtime: bool = False,
) -> Redrive:
    """Play ``session``'s caller side against ``brain_url`` (None: the built-in brain)."""
    original = _original(session)
    options = CallOptions(
        brain_url=brain_url,
        builtin=builtin,
        settings=original.settings,
        recording=CallMode.SIM,
        redrive_of=original.row.id,
    )
    async with brain_url_for(options) as url:
        rate = speaking_rate(original.events) or REDRIVE_MS_PER_WORD
        warp = None if realtime else WarpClock(hold_s=original.hold_s)
        host = await open_call(options, url, SimPlayout(ms_per_word=rate), warp=warp)
        return await _played(original, host, _Caller(host, original.script), ignore_text)


async def redrive_audio(
    session: str,
    brain_url: str | None,
    *,
    builtin: str = "concierge",
    ignore_text: bool = False,
    progress: Callable[[str], None] | None = None,
    line: LineProfile = PROFILES[DEFAULT_LINE],
) -> Redrive:
    """Play ``session``'s recorded caller audio again, in real time, through the real
    endpointing, barge-in detection and Whisper, against ``brain_url``; on ``line``, both
    ways (the leg is what the call heard: a call made on a line has crossed it once)."""
    original = _original(session)
    row = original.row
    if row.mode != "audio":
        raise UserError(
            f"session {short_id(row.id)} has no caller audio (it was a {row.mode} call): "
            "re-drive it without --audio real"
        )
    samples, rate = read_leg(leg_path(row.id, MIC))
    script, lines = _voiced(original.script, spoken_lines(original.events), row.id)
    # The leg is the microphone as the call heard it, echo already cancelled and noise
    # suppressed: the canceller's second pass would only change what Whisper hears.
    mic = ScriptMic()
    engine = AudioEngine(AudioOptions(speaker="none", aec=False, line=line), mic_source=mic)
    await asyncio.to_thread(engine.load, progress)
    options = CallOptions(
        brain_url=brain_url,
        builtin=builtin,
        settings=original.settings,
        recording=CallMode.AUDIO,
        redrive_of=row.id,
        line=phone_line(line),
    )
    async with brain_url_for(options) as url, audio_call(options, url, engine) as host:
        voice = RecordedVoice(mic, deque(cut_clips(samples, rate, lines)), rate)
        runner = _Caller(host, script, caller=voice)
        return await _played(original, host, runner, ignore_text)


def _voiced(
    script: Script, lines: list[SpokenLine], session_id: str
) -> tuple[Script, list[SpokenLine]]:
    """The script with each line over the bot starting at the word where the caller's voice
    did, and the lines, those over the bot cut from that word."""
    spoken = [i for i, step in enumerate(script.steps) if step.kind in _SPOKEN]
    if len(spoken) != len(lines):
        raise UserError(
            f"session {short_id(session_id)}'s caller audio does not line up with its turns "
            f"({len(lines)} voiced lines for {len(spoken)} spoken steps)"
        )
    steps, voiced = list(script.steps), []
    for index, line in zip(spoken, lines, strict=True):
        over_bot = steps[index].kind != "say"
        if over_bot:
            steps[index] = replace(steps[index], after_words=line.after_words)
        voiced.append(replace(line, over_bot=over_bot))
    return replace(script, steps=tuple(steps)), voiced


class _Caller(ScriptRunner):
    """The script's caller, who may also hang up over the bot at a word of its reply."""

    async def play(self, step: Step, index: int = 0) -> None:
        """Carry out one step; an ``end`` at once waits for its ``after_words`` first."""
        if step.kind == "end" and step.now and step.after_words:
            await self.until_words(step.after_words, index)
        await super().play(step, index)


async def _played(
    original: _Original, host: CallHost, runner: ScriptRunner, ignore_text: bool
) -> Redrive:
    """Play the runner's script into the host's call, record it, and compare."""
    kept = CoreRecords(host)
    try:
        await play_through(host, runner)
    finally:
        after = host.recorder.finish(host.core, host.now(), script_notes=runner.notes)
    findings = [f"{f.rule.section}: {f.detail}" for f in WireLog(kept.records).findings]
    diff = compare(original.report, after, findings, ignore_text=ignore_text)
    return Redrive(original.row.id, host.core.session_id, diff)
