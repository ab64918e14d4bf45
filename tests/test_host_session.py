"""The host never loses an error or a waiter: what ends a call, a failing link and a
looping playout all say so, and a settings change always gets its answer."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator

import pytest

from sandbox.brains import Echo
from sandbox.call.played import Played, WordPlayed
from sandbox.call.sim_playout import SimPlayout
from sandbox.harness.inproc import open_inproc_call
from sandbox.host.launch import CallOptions, host_for, open_call
from sandbox.host.posted import Posted
from sandbox.host.session import PUMP_LIMIT, CallHost
from sandbox.load.latency_watch import LatencyWatch
from sandbox.sdk import serve
from sandbox.wire import decode, encode, pb
from sandbox.wire.keepalive import LivelyConnection
from sandbox.wire.tokens import load_or_create_keys


def echo_call(playout: SimPlayout | None = None) -> CallHost:
    return open_inproc_call(CallOptions(), Echo(), playout or SimPlayout(ms_per_word=5))


def test_a_host_needs_the_loop_that_will_run_it() -> None:
    """Built outside a running loop, threads posting to it would be dropped: refuse."""
    with pytest.raises(RuntimeError, match="no running event loop"):
        host_for(CallOptions(), None, "sid", "nowhere", SimPlayout())  # type: ignore[arg-type]


async def test_configure_after_the_end_is_answered_not_left_waiting() -> None:
    host = echo_call()
    running = asyncio.create_task(host.run())
    host.hang_up()
    # Posted behind the hang-up: the loop ends first, and the answer still comes.
    answer = await asyncio.wait_for(host.configure(pb.Config()), 5)
    assert answer == "the call has ended"
    await asyncio.wait_for(running, 5)
    assert await asyncio.wait_for(host.configure(pb.Config()), 1) == "the call has ended"


async def test_a_link_that_fails_to_close_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    host = echo_call()

    async def broken_close() -> None:
        raise OSError("socket already gone")

    host.conn.close = broken_close  # type: ignore[method-assign]
    host.hang_up()
    with caplog.at_level(logging.WARNING, logger="sandbox.host.session"):
        ended = await asyncio.wait_for(host.run(), 5)
    assert ended.ended_by == "caller"
    (record,) = [r for r in caplog.records if "closing the brain's link failed" in r.message]
    assert record.exc_info is not None and "socket already gone" in str(record.exc_info[1])


class _Stuck(SimPlayout):
    """A playout that reports a word of the greeting (unit 1) at every instant: a bug the
    host must name rather than stop pumping quietly."""

    def advance(self, now: int) -> list[Played]:
        return [WordPlayed(1, "again"), *super().advance(now)]


async def test_a_looping_playout_is_an_error_not_a_silent_stop() -> None:
    host = echo_call(_Stuck(ms_per_word=5))
    with pytest.raises(RuntimeError, match=f"after {PUMP_LIMIT} rounds"):
        await asyncio.wait_for(host.run(), 10)


class _EndInFlight:
    """A brain's link whose End is still in flight when Voqalize starts to close: it refuses
    the session with a fatal Error, and its End lands during the closing handshake."""

    def __init__(self) -> None:
        self.inbox: asyncio.Queue[bytes | None] = asyncio.Queue()

    async def send(self, message: bytes) -> None:
        if decode(message).HasField("session_start"):
            refusal = pb.Error(code=pb.ERROR_CODE_VERSION, message="v4 only", fatal=True)
            self.inbox.put_nowait(encode(refusal))

    async def close(self) -> None:
        self.inbox.put_nowait(encode(pb.End()))
        self.inbox.put_nowait(None)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while (message := await self.inbox.get()) is not None:
            yield message


async def test_what_the_brain_sent_before_the_link_closed_is_recorded() -> None:
    host = host_for(CallOptions(), _EndInFlight(), "sid", "in-flight", SimPlayout())
    ended = await asyncio.wait_for(host.run(), 5)
    assert ended.outcome == "not_reached"
    assert [(f.dir, f.type) for f in host.recorder.frames] == [
        ("out", "session_start"),
        ("in", "error"),
        ("in", "end"),  # read during the closing handshake, not dropped with the reader
    ]


async def test_a_frame_over_a_websocket_is_timed_when_its_bytes_arrived() -> None:
    """A loop busy with other calls gets to the bytes 0.3 s after they arrived: the
    greeting's first chunk still measures the brain's time, not the wait for the reader."""
    server = await serve(
        Echo, host="127.0.0.1", port=0, public_key_pem=load_or_create_keys().public_pem
    )
    try:
        options = CallOptions(brain_url=server.url())
        host = await open_call(options, server.url(), SimPlayout(ms_per_word=300))
        conn = host.brain.conn
        assert isinstance(conn, LivelyConnection)
        arrived = conn.data_received
        busy: list[float] = []

        def then_busy(data: bytes) -> None:
            arrived(data)  # stamped and queued for the reader, which runs after this returns
            busy.append(time.monotonic())
            time.sleep(0.3)

        conn.data_received = then_busy  # type: ignore[method-assign]
        watch = LatencyWatch(wall=host.wall_of_effects, now=host.now)
        host.on_effect.append(watch)
        running = asyncio.create_task(host.run())
        await host.wait_for(lambda: bool(watch.first_chunk_ms), 10)
        assert busy and watch.first_chunk_ms[0] < 250, watch.first_chunk_ms
        conn.data_received = arrived  # type: ignore[method-assign]
        host.hang_up()
        await asyncio.wait_for(running, 10)
    finally:
        await server.close()


async def test_a_frames_effects_are_timed_when_it_was_read_not_when_the_core_took_it() -> None:
    """A loop busy with other calls takes a frame late: the greeting's first chunk, taken
    0.3 s after its read, still measures the brain's time, not the wait."""
    host = echo_call()
    loop = asyncio.get_running_loop()
    watch = LatencyWatch(wall=host.wall_of_effects, now=host.now)
    host.on_effect.append(watch)
    taken_late: list[float] = []

    def post_late(event: Posted) -> None:
        taken_late.append(time.monotonic())
        loop.call_later(0.3, host.post, event)

    host.brain.post = post_late
    running = asyncio.create_task(host.run())
    await host.wait_for(lambda: bool(watch.first_chunk_ms), 5)
    assert taken_late and watch.first_chunk_ms[0] < 250
    now = time.monotonic()
    assert now <= host.wall_of_effects() < now + 0.05  # between frames: now
    host.hang_up()
    await asyncio.wait_for(running, 5)
