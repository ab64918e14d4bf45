"""Recorded sessions for the store and replay tests: a real sim call, and a fixed one."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from google.protobuf.message import Message

from sandbox.call.sim_playout import SimPlayout
from sandbox.caller.script import parse_script
from sandbox.caller.script_runner import ScriptRunner
from sandbox.harness.builtin import brain_url_for
from sandbox.host.launch import CallOptions, open_call
from sandbox.host.session import CallHost
from sandbox.host.warp import WarpClock
from sandbox.record.session_kinds import CallMode, Leg
from sandbox.record.writer import SessionEnd, SessionWriter
from sandbox.wire import encode, pb

SCRIPT = """
ms_per_word = 10
[[step]]
say = "What are your opening hours?"
[[step]]
barge_in = "And on Sunday?"
after_words = 2
[[step]]
rtvi = { type = "ui-event", data = { event = "tap" } }
"""

FIXED_ID = "f1xed000-0000-4000-8000-000000000000"


async def recorded_call(
    script: str = SCRIPT, brain_url: str | None = None, wall: Callable[[], float] = time.monotonic
) -> CallHost:
    """A sim call to ``brain_url`` (the built-in concierge when None), recorded, played from
    ``script`` to its end on the warp clock (over ``wall``)."""
    options = CallOptions(brain_url=brain_url, recording=CallMode.SIM)
    async with brain_url_for(options) as url:
        # On the warp clock: a barge-in lands on its word exactly, however busy the machine.
        warp = WarpClock(wall=wall)
        host = await open_call(options, url, SimPlayout(ms_per_word=10), warp=warp)
        runner = ScriptRunner(host, parse_script(script))
        playing = asyncio.create_task(runner.run())
        await host.run()
        await playing
        host.recorder.finish(host.core, host.now())
    return host


def fixed_session(mode: CallMode = CallMode.SIM) -> str:
    """A short call at fixed times, written through the real writer: a greeting, a question,
    an answer cut after three words by a barge-in, and the answer to the barge-in."""
    writer = SessionWriter(
        FIXED_ID, brain_url="ws://127.0.0.1:8765/brain", leg=Leg.DIRECT, mode=mode
    )

    def frame(t: int, direction: str, body: Message) -> None:
        writer.frame(t, direction, encode(body))

    def words(t: int, sid: int, text: str, step: int = 200) -> int:
        for word in text.split():
            writer.event(t, "word_played", {"speech_id": sid, "word": word})
            t += step
        return t

    def caller(t: int, turn: int, text: str) -> None:
        frame(t, "out", pb.UserMessage(turn_id=turn, text=text))
        writer.event(t, "caller_shown", {"kind": "spoken", "text": text, "turn_id": turn})

    def unit(t: int, sid: int, turn: int, text: str) -> None:
        frame(t, "in", pb.SpeechStart(speech_id=sid, turn_id=turn))
        frame(t + 10, "in", pb.SpeechChunk(speech_id=sid, text=text))
        frame(t + 20, "in", pb.SpeechEnd(speech_id=sid))

    frame(0, "out", pb.SessionStart(turn_id=1, session_id=FIXED_ID, wire_version=3))
    unit(100, 1, 1, "Hello, how can I help?")
    end = words(150, 1, "Hello, how can I help?")
    frame(end, "out", pb.Finalize(speech_id=1, heard_text="Hello, how can I help?"))
    caller(2000, 2, "What are your opening hours?")
    unit(2500, 2, 2, "We open at nine, Monday to Friday.")
    words(2550, 2, "We open at")
    frame(3200, "out", pb.Interruption(through_turn=2))
    writer.event(3200, "cut_playout", {"reason": "barge-in"})
    frame(3200, "out", pb.Finalize(speech_id=2, heard_text="We open at"))
    caller(4000, 3, "And on Sunday?")
    unit(4500, 3, 3, "Sunday we are closed.")
    end = words(4550, 3, "Sunday we are closed.")
    frame(end, "out", pb.Finalize(speech_id=3, heard_text="Sunday we are closed."))
    frame(6000, "out", pb.End())
    writer.event(6000, "call_ended", {"outcome": "completed", "ended_by": "caller", "detail": ""})
    writer.finish(SessionEnd("completed", "caller", "", 6000, 2, 3, 1, 0, {"frames": []}))
    return FIXED_ID
