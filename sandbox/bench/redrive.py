"""How fast a saved call re-drives: ``sandbox bench --redrive [--minutes 5]``.

A simulated call of about the length asked for is recorded against the built-in concierge
(a caller asking the studio's usual questions at 350 ms a word, with a barge-in every fifth
turn, a backchannel every seventh and an idle nudge every tenth), itself on the warp clock
so the bench does not wait five minutes for it. Then it is re-driven against the same brain
the way ``sandbox replay ID --brain builtin`` does, and timed on the wall clock:

* ``redrive_s``: wall seconds for the whole re-drive (dial, play, record, diff);
* ``speedup``: the call's own length over that (target ≥ 20 times real time, so that a
  5-minute call re-drives in ≤ 15 s on a 2-core machine);
* ``redrive_exit``: the diff's exit status, 0 when the same brain heard the same;
* ``brain_s``: of the re-drive, the wall time the brain spent answering (a caller's turn
  going out → that answer's SpeechEnd coming in), which the warp clock never skips: the
  built-in concierge streams a piece every 15 ms, as a language model would;
* ``speedup_without_brain``: the call's length over the re-drive's time less ``brain_s``,
  what the sandbox's own side manages.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from sandbox.bench.figures import Progress, target_lines
from sandbox.bench.own_home import own_home
from sandbox.call.sim_playout import SimPlayout
from sandbox.check.redrive import redrive
from sandbox.harness.builtin import brain_url_for
from sandbox.host.launch import CallOptions, open_call
from sandbox.host.script import parse_script
from sandbox.host.script_runner import ScriptRunner, play_through
from sandbox.host.warp import WarpClock
from sandbox.record.export import frame_record
from sandbox.record.recorder import FrameRecord
from sandbox.record.store import SessionStore

#: Targets from the issue (2-core machine).
TARGETS: dict[str, tuple[str, float]] = {"speedup": ("min", 20)}
_MS_PER_WORD = 350
_SECONDS_PER_TURN = 9  # the concierge's answers at 350 ms a word, roughly
_QUESTIONS = (
    "What are your opening hours?",
    "How much is a class?",
    "Where are you exactly?",
    "Is there parking?",
    "Can I book a class for tomorrow?",
)


@dataclass(frozen=True)
class RedriveFigures:
    """One recorded call and its re-drive."""

    call_s: float
    turns: int
    redrive_s: float
    speedup: float
    redrive_exit: int
    brain_s: float
    speedup_without_brain: float


def script_for(minutes: float) -> str:
    """A caller script of about ``minutes`` against the concierge."""
    turns = max(3, round(minutes * 60 / _SECONDS_PER_TURN))
    lines = [f"ms_per_word = {_MS_PER_WORD}"]
    for turn in range(1, turns + 1):
        question = _QUESTIONS[turn % len(_QUESTIONS)]
        if turn % 5 == 0:
            step = f'barge_in = "Sorry, {question.lower()}"\nafter_words = 6'
        else:
            step = f'say = "{question}"'
        lines.append(f"[[step]]\n{step}")
        if turn % 7 == 0:
            lines.append('[[step]]\nbackchannel = "mm-hmm"\nafter_words = 3')
        if turn % 10 == 0:
            lines.append("[[step]]\nsilence_ms = 9000")
    return "\n\n".join(lines) + "\n"


async def measure_redrive(minutes: float, progress: Progress) -> RedriveFigures:
    """Record a call of about ``minutes`` in a store of the bench's own and re-drive it."""
    with own_home():
        script = parse_script(script_for(minutes), "the bench's caller")
        progress(f"  recording a {minutes:g}-minute simulated call (on the warp clock)")
        options = CallOptions(builtin="concierge", recording="sim")
        async with brain_url_for(options) as url:
            host = await open_call(
                options, url, SimPlayout(ms_per_word=_MS_PER_WORD), warp=WarpClock()
            )
            runner = ScriptRunner(host, script)
            await play_through(host, runner)
            host.recorder.finish(host.core, host.now(), script_notes=runner.notes)
        with SessionStore() as store:
            row = store.find(host.core.session_id)
        call_s = (row.duration_ms or 0) / 1000
        progress(f"  re-driving it ({call_s:.0f} s of call, {row.caller_turns} turns)")
        start = time.perf_counter()
        done = await redrive(row.id, None)
        redrive_s = time.perf_counter() - start
        progress(f"  re-drove in {redrive_s:.1f} s ({call_s / redrive_s:.0f} times real time)")
        with SessionStore() as store:
            brain_s = brain_busy_ms([frame_record(f) for f in store.frames(done.session_id)]) / 1000
        return RedriveFigures(
            call_s=round(call_s, 1),
            turns=row.caller_turns or 0,
            redrive_s=round(redrive_s, 2),
            speedup=round(call_s / redrive_s, 1),
            redrive_exit=done.diff.exit_status,
            brain_s=round(brain_s, 2),
            speedup_without_brain=round(call_s / max(redrive_s - brain_s, 1e-3), 1),
        )


def brain_busy_ms(frames: list[FrameRecord]) -> int:
    """How long the brain was answering: the union of (turn out → its units' SpeechEnd in)."""
    asked: dict[int, int] = {}
    turn_of: dict[int, int] = {}
    spans: list[tuple[int, int]] = []
    for frame in frames:
        kind, fields = frame.type, frame.fields
        if frame.dir == "out" and kind in ("session_start", "user_message", "user_idle"):
            asked[int(fields.get("turn_id", 0))] = frame.t_ms
        elif frame.dir == "in" and kind == "speech_start":
            turn_of[int(fields.get("speech_id", 0))] = int(fields.get("turn_id", 0))
        elif frame.dir == "in" and kind == "speech_end":
            turn = turn_of.get(int(fields.get("speech_id", 0)), -1)
            if turn in asked:
                spans.append((asked[turn], frame.t_ms))
    busy, reach = 0, 0
    for start, end in sorted(spans):
        start = max(start, reach)
        if end > start:
            busy += end - start
            reach = end
    return busy


def redrive_table(figures: dict[str, object]) -> str:
    """The figures as lines, the speed beside its target."""
    head = (
        f"re-drive, a {figures['call_s']} s simulated call ({figures['turns']} turns): "
        f"{figures['redrive_s']} s, exit {figures['redrive_exit']}; the brain answering "
        f"{figures['brain_s']} s of it ({figures['speedup_without_brain']} times real time "
        "without it)"
    )
    return "\n".join([head, *target_lines(figures, TARGETS)])
