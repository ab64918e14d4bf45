"""Dialing a real websockets brain on 127.0.0.1: what is sent, what is retried, what is final."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import pytest
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

import sandbox.wire.dial as dialing
from sandbox.wire import decode, encode, pb
from sandbox.wire.dial import (
    MAX_MESSAGE_BYTES,
    DialError,
    brain_url_with_session,
    dial,
)
from sandbox.wire.relay import RELAY_PATH

SESSION = "0b7e4a52-3f1d-4c3a-9a53-6a1f2e9d8c10"
TOKEN = "header.payload.signature"


@dataclass
class Brain:
    """A real WebSocket server that records each handshake and answers per ``script``.

    ``script`` gives, per connection attempt (the last entry repeats), either an HTTP
    status to refuse with, a close code to send right after accepting, "echo", or
    "hang up" (close once the first message came, when the call was up).
    """

    script: list[int | str] = field(default_factory=lambda: ["echo"])
    requests: list[tuple[str, Headers]] = field(default_factory=list)
    server: Server | None = None

    @property
    def port(self) -> int:
        assert self.server is not None
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    def url(self, path: str = "/brain") -> str:
        return f"ws://127.0.0.1:{self.port}{path}"

    def _step(self) -> int | str:
        return self.script[min(len(self.requests), len(self.script)) - 1]

    def process_request(self, conn: ServerConnection, request: Request) -> Response | None:
        self.requests.append((request.path, request.headers))
        step = self._step()
        if isinstance(step, int) and step < 1000:
            return conn.respond(step, "refused by the test brain\n")
        return None

    async def handler(self, ws: ServerConnection) -> None:
        step = self._step()
        if isinstance(step, int):
            await ws.close(step, "no agent" if step == 4000 else "try again")
            return
        if step == "hang up":
            await ws.recv()
            await ws.close(1001, "going away")
            return
        async for message in ws:
            await ws.send(message)

    async def start(self, port: int = 0) -> None:
        self.server = await serve(
            self.handler,
            "127.0.0.1",
            port,
            process_request=self.process_request,
            max_size=MAX_MESSAGE_BYTES,
        )

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


@pytest.fixture
async def brain_factory() -> AsyncIterator[Callable[..., Brain]]:
    brains: list[Brain] = []

    def make(*script: int | str) -> Brain:
        brain = Brain(list(script) or ["echo"])
        brains.append(brain)
        return brain

    yield make
    for brain in brains:
        await brain.stop()


@dataclass
class Attempt:
    """One connection attempt of dial(), on the event loop's clock."""

    began: float
    ended: float | None = None
    failed: bool = False


@pytest.fixture
def attempts(monkeypatch: pytest.MonkeyPatch) -> list[Attempt]:
    """Every attempt dial() makes in this test, as it makes them."""
    made: list[Attempt] = []
    open_once = dialing._open

    async def watched(*args: object, **kwargs: object) -> object:
        loop = asyncio.get_running_loop()
        attempt = Attempt(loop.time())
        made.append(attempt)
        try:
            return await open_once(*args, **kwargs)  # type: ignore[arg-type]
        except BaseException:
            attempt.failed = True
            raise
        finally:
            attempt.ended = loop.time()

    monkeypatch.setattr(dialing, "_open", watched)
    return made


async def _until(check: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    """Wait until ``check()`` holds; fail naming ``what`` if it does not in ``timeout``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def test_dial_presents_session_and_bearer_token(brain_factory: Callable[..., Brain]) -> None:
    brain = brain_factory()
    await brain.start()
    conn = await dial(brain.url("/v1/brain"), SESSION, TOKEN)
    try:
        await conn.send(encode(pb.SpeechChunk(speech_id=1, text="hello")))
        assert decode(await conn.recv()).speech_chunk.text == "hello"
    finally:
        await conn.close()
    [(path, headers)] = brain.requests
    assert path == f"/v1/brain?session_id={SESSION}"
    assert headers["Authorization"] == f"Bearer {TOKEN}"


async def test_relay_dial_uses_the_url_as_given(brain_factory: Callable[..., Brain]) -> None:
    brain = brain_factory()
    await brain.start()
    conn = await dial(brain.url(RELAY_PATH), SESSION, TOKEN, relay=True)
    await conn.close()
    [(path, headers)] = brain.requests
    assert path == "/agent"
    assert headers["Authorization"] == f"Bearer {TOKEN}"


async def test_first_connect_is_retried_until_the_brain_listens(
    brain_factory: Callable[..., Brain], attempts: list[Attempt]
) -> None:
    brain = brain_factory()
    port = _free_port()
    dialing = asyncio.create_task(dial(f"ws://127.0.0.1:{port}/brain", SESSION, TOKEN))
    await _until(lambda: sum(a.failed for a in attempts) >= 3, "three refused attempts")
    assert not dialing.done()
    await brain.start(port)
    conn = await asyncio.wait_for(dialing, 10)
    await conn.close()
    assert len(brain.requests) == 1
    assert all(a.failed for a in attempts[:-1]) and not attempts[-1].failed


async def test_no_brain_gives_up_after_the_retry_window(attempts: list[Attempt]) -> None:
    url = f"ws://127.0.0.1:{_free_port()}/brain"
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(DialError, match="could not reach the brain") as caught:
        await dial(url, SESSION, TOKEN, retry_for_s=0.4)
    assert loop.time() - started >= 0.4  # not before the window closed
    # It retried all through the window, and gave up with the first failure after it:
    # every earlier attempt had failed while the window (from the first) was open.
    assert len(attempts) >= 2 and all(a.failed for a in attempts)
    window_closed = attempts[0].began + 0.4
    assert all(a.ended is not None and a.ended < window_closed for a in attempts[:-1])
    assert not caught.value.permanent
    assert "sandbox brain" in str(caught.value)


@pytest.mark.parametrize("status", [401, 403])
async def test_refused_credential_is_permanent(
    brain_factory: Callable[..., Brain], status: int
) -> None:
    brain = brain_factory(status)
    await brain.start()
    with pytest.raises(DialError, match=f"HTTP {status}") as caught:
        await dial(brain.url(), SESSION, TOKEN, retry_for_s=5)
    assert caught.value.permanent
    assert "sandbox keys" in str(caught.value)
    # Given up at once: the brain refuses every attempt, and saw only one.
    assert len(brain.requests) == 1


async def test_close_4000_at_once_is_permanent(brain_factory: Callable[..., Brain]) -> None:
    brain = brain_factory(4000)
    await brain.start()
    with pytest.raises(DialError, match="no agent") as caught:
        await dial(brain.url(), SESSION, TOKEN, retry_for_s=5)
    assert caught.value.permanent
    assert len(brain.requests) == 1  # at once: every attempt would have been closed alike


@pytest.mark.parametrize("code", [1000, 1011])
async def test_any_close_once_the_upgrade_was_answered_is_never_redialed(
    brain_factory: Callable[..., Brain], code: int
) -> None:
    """The wire contract: a session is never reconnected. The brain answered the upgrade, so
    the session exists on its side; a redial under the same session_id would be a second
    session."""
    brain = brain_factory(code, "echo")
    await brain.start()
    with pytest.raises(DialError, match=f"closed it at once \\(code {code}") as caught:
        await dial(brain.url(), SESSION, TOKEN, retry_for_s=5)
    assert caught.value.permanent and "never reconnected" in str(caught.value)
    assert len(brain.requests) == 1


async def test_server_error_is_retried(brain_factory: Callable[..., Brain]) -> None:
    brain = brain_factory(503, 503, "echo")
    await brain.start()
    conn = await dial(brain.url(), SESSION, TOKEN)
    await conn.close()
    assert len(brain.requests) == 3


async def test_wrong_path_is_permanent(brain_factory: Callable[..., Brain]) -> None:
    brain = brain_factory(404)
    await brain.start()
    with pytest.raises(DialError, match="HTTP 404") as caught:
        await dial(brain.url(), SESSION, TOKEN, retry_for_s=5)
    assert caught.value.permanent
    assert len(brain.requests) == 1


async def test_not_a_websocket_url_is_permanent() -> None:
    with pytest.raises(DialError, match="not a WebSocket URL") as caught:
        await dial("http://127.0.0.1:1/brain", SESSION, TOKEN)
    assert caught.value.permanent


async def test_a_close_after_success_is_never_redialed(
    brain_factory: Callable[..., Brain], attempts: list[Attempt]
) -> None:
    brain = brain_factory("hang up", "echo")  # still listening after it hung up
    await brain.start()
    conn = await dial(brain.url(), SESSION, TOKEN)
    await conn.send(b"\x6a\x00")
    with pytest.raises(ConnectionClosed):
        await conn.recv()
    # Both ends wind down, and then nothing is left that could dial again: a redial
    # would be a task still running (and its socket would stay up, echoing).
    this = asyncio.current_task()
    await _until(lambda: asyncio.all_tasks() == {this}, "every other task to finish")
    assert len(attempts) == 1
    assert len(brain.requests) == 1


async def test_large_frames_cross(brain_factory: Callable[..., Brain]) -> None:
    brain = brain_factory()
    await brain.start()
    conn = await dial(brain.url(), SESSION, TOKEN)
    big = encode(pb.SpeechChunk(speech_id=1, text="x" * (3 * 2**20)))
    await conn.send(big)
    assert await conn.recv() == big
    await conn.close()


@pytest.mark.parametrize(
    ("brain_url", "expected"),
    [
        ("ws://h:1/brain", f"ws://h:1/brain?session_id={SESSION}"),
        ("ws://h:1/Brain/v2/", f"ws://h:1/Brain/v2/?session_id={SESSION}"),
        ("ws://h:1/b%20x", f"ws://h:1/b%20x?session_id={SESSION}"),
        ("wss://h/b?agent=x&k=a%2Fb", f"wss://h/b?agent=x&k=a%2Fb&session_id={SESSION}"),
        ("ws://h/b?session_id=old&a=1", f"ws://h/b?a=1&session_id={SESSION}"),
        ("ws://h/b?", f"ws://h/b?session_id={SESSION}"),
        ("ws://h:1", f"ws://h:1?session_id={SESSION}"),
    ],
)
def test_brain_url_with_session(brain_url: str, expected: str) -> None:
    assert brain_url_with_session(brain_url, SESSION) == expected


def test_session_id_is_quoted_in_the_url() -> None:
    assert brain_url_with_session("ws://h/b", "a b&c") == "ws://h/b?session_id=a%20b%26c"
