"""The warp clock: a simulated call skips its dead time, never the brain's own."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from sandbox.brains.echo import Echo
from sandbox.call.settings import Settings
from sandbox.call.sim_playout import SimPlayout
from sandbox.call.turn_records import BracketClosed, TurnKind, TurnSent
from sandbox.call.unit_records import UnitOpened
from sandbox.caller.script import parse_script
from sandbox.caller.script_runner import ScriptRunner, play_through
from sandbox.host.launch import CallOptions, open_call
from sandbox.host.warp import WarpClock, brain_busy_ms, work_gaps
from sandbox.sdk import Session, Speech, UserMessage, serve
from sandbox.wire.tokens import load_or_create_keys


class Wall:
    """A wall clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_it_skips_only_once_the_link_has_been_quiet_for_the_grace() -> None:
    wall = Wall()
    warp = WarpClock(wall, grace_s=0.03)
    assert warp() == 100.0 and warp.quiet_left() == 0.03
    wall.now += 0.01
    assert round(warp.quiet_left(), 6) == 0.02
    wall.now += 0.05
    assert warp.quiet_left() == 0.0
    warp.skip(7.5)
    assert warp() == 107.56 and warp.skipped_s == 7.5
    warp.brain_io()  # a frame crossed: quiet again from now
    assert warp.quiet_left() == 0.03
    warp.skip(-1.0)  # never backwards
    assert warp.skipped_s == 7.5


class SlowEcho(Echo):
    """Thinks for 300 ms of wall time before each answer."""

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        await asyncio.sleep(0.3)
        async for speech in super().on_user_message(session, msg):
            yield speech


async def test_a_minute_of_silence_is_skipped_but_the_brains_thinking_is_not() -> None:
    server = await serve(
        SlowEcho, host="127.0.0.1", port=0, public_key_pem=load_or_create_keys().public_pem
    )
    script = parse_script(
        '[[step]]\nsay = "hello there"\n[[step]]\nsilence_ms = 60000\n[[step]]\nsay = "bye"\n'
    )
    warp = WarpClock()
    try:
        options = CallOptions(brain_url=server.url(), settings=Settings(idle_ms=0))
        host = await open_call(options, server.url(), SimPlayout(ms_per_word=300), warp=warp)
        runner = ScriptRunner(host, script)
        await play_through(host, runner)
    finally:
        await server.close()
    assert runner.notes == []
    frames = host.recorder.frames
    asked = [f.t_ms for f in frames if f.dir == "out" and f.type == "user_message"]
    answered = [
        f.t_ms
        for f in frames
        if f.dir == "in" and f.type == "speech_start" and f.fields["turn_id"] > 1
    ]
    assert len(asked) == len(answered) == 2
    # The brain's 300 ms of thought ran on real time: it is in the call's time as it was.
    assert all(300 <= a - q < 1500 for q, a in zip(asked, answered, strict=True))
    # The minute of silence was skipped, not slept; it is still a minute in the call's time.
    # (The silence starts when the first line is posted, a millisecond or two before the
    # core stamps and sends it.)
    assert warp.skipped_s >= 59
    assert asked[1] - asked[0] >= 60_000 - 5
    assert not any(f.type == "error" for f in frames)


def test_the_brains_busy_time_is_read_from_the_cores_records_as_the_warp_clock_reads_them() -> None:
    records: list[tuple[int, object]] = [
        (0, TurnSent(1, TurnKind.GREETING)),
        (100, UnitOpened(1, 1, 0, 0)),
        (400, BracketClosed(1, cancelled=False)),  # the greeting: 0-400
        (1000, TurnSent(2, TurnKind.CALLER, "hi")),
        (1200, UnitOpened(2, 2, 0, 0)),
        (1300, BracketClosed(2, cancelled=True)),  # cancelled: not an answer
        (1500, UnitOpened(3, 2, 0, 0)),
        (1900, BracketClosed(3, cancelled=False)),  # turn 2: 1000-1900
        (1950, BracketClosed(9, cancelled=False)),  # a unit never opened: nobody's
    ]
    assert brain_busy_ms(records) == 400 + 900
    assert work_gaps(records) == [pytest.approx(0.2)]  # turn 2's wait between its units
