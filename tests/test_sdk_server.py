"""serve() over real sockets with real tokens: both legs, refusals, malformed messages."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from test_sdk_harness import eventually
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from sandbox.brains.echo import GREETING, Echo
from sandbox.sdk import BrainServer, serve
from sandbox.wire import decode, encode, pb
from sandbox.wire.dial import DialError, dial
from sandbox.wire.relay import frame_relay, unframe_relay
from sandbox.wire.tokens import RELAY_SUBJECT, KeyPair, load_or_create_keys, mint_token

SESSION = "3f0c2a8e-5d41-4b7a-9e0f-1c2d3e4f5a6b"
OTHER = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> KeyPair:
    return load_or_create_keys(Path(tmp_path_factory.mktemp("keys")))


@pytest.fixture
async def server(keys: KeyPair) -> AsyncIterator[BrainServer]:
    async with await serve(Echo, public_key_pem=keys.public_pem) as running:
        yield running


def start(session_id: str) -> bytes:
    return encode(
        pb.SessionStart(
            turn_id=1,
            session_id=session_id,
            wire_version=3,
            capabilities=[pb.CAPABILITY_SPEECH_CANCEL],
        )
    )


async def recv(ws: ClientConnection) -> pb.Envelope:
    return decode(await asyncio.wait_for(ws.recv(), 2))


async def recv_arms(ws: ClientConnection, count: int) -> list[pb.Envelope]:
    return [await recv(ws) for _ in range(count)]


async def test_inbound_leg_greets_answers_and_survives_garbage(
    server: BrainServer, keys: KeyPair
) -> None:
    ws = await dial(server.url(), SESSION, mint_token(keys, SESSION))
    async with ws:
        await ws.send(start(SESSION))
        greeting = await recv_arms(ws, 3)
        assert [e.WhichOneof("body") for e in greeting] == [
            "speech_start",
            "speech_chunk",
            "speech_end",
        ]
        assert greeting[1].speech_chunk.text == GREETING

        await ws.send(b"\xff\x00 not an envelope")
        err = (await recv(ws)).error
        assert (err.code, err.fatal) == (pb.ERROR_CODE_MALFORMED, False)
        assert "undecodable envelope" in err.message

        await ws.send("a text message")
        err = (await recv(ws)).error
        assert (err.code, err.fatal) == (pb.ERROR_CODE_MALFORMED, False)
        assert "text WebSocket message" in err.message

        await ws.send(encode(pb.UserMessage(turn_id=2, text="still there?")))
        reply = await recv_arms(ws, 3)
        assert reply[0].speech_start.turn_id == 2
        assert reply[1].speech_chunk.text == "You said: still there?"

        await ws.send(encode(pb.End()))
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 2)  # the session is over: the brain closes


async def test_version_refusal_over_the_socket(server: BrainServer, keys: KeyPair) -> None:
    ws = await dial(server.url(), SESSION, mint_token(keys, SESSION))
    async with ws:
        await ws.send(encode(pb.SessionStart(turn_id=1, session_id=SESSION, wire_version=2)))
        err, end = await recv_arms(ws, 2)
        assert err.error.code == pb.ERROR_CODE_VERSION and err.error.fatal
        assert end.WhichOneof("body") == "end"
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 2)


async def _status_of(url: str, headers: dict[str, str]) -> int:
    with pytest.raises(InvalidStatus) as refused:
        await connect(url, additional_headers=headers)
    return refused.value.response.status_code


async def test_bad_tokens_are_refused_at_the_handshake(
    server: BrainServer, keys: KeyPair, tmp_path: Path
) -> None:
    url = f"{server.url()}?session_id={SESSION}"
    stranger = load_or_create_keys(tmp_path / "other")
    cases = {
        "no token": {},
        "garbage": {"Authorization": "Bearer not.a.jwt"},
        "another session's": {"Authorization": f"Bearer {mint_token(keys, OTHER)}"},
        "another key's": {"Authorization": f"Bearer {mint_token(stranger, SESSION)}"},
        "expired": {"Authorization": f"Bearer {mint_token(keys, SESSION, ttl_s=1, now=1000)}"},
        "relay token inbound": {"Authorization": f"Bearer {mint_token(keys, RELAY_SUBJECT)}"},
    }
    for case, headers in cases.items():
        assert await _status_of(url, headers) == 401, case
    relay_headers = {"Authorization": f"Bearer {mint_token(keys, SESSION)}"}
    assert await _status_of(server.relay_url, relay_headers) == 401  # relay needs sub=relay
    with pytest.raises(DialError, match="refused the connection token"):
        await dial(server.url(), SESSION, mint_token(stranger, SESSION), retry_for_s=0.5)


async def test_a_dial_without_a_session_id_is_a_bad_request(
    server: BrainServer, keys: KeyPair
) -> None:
    headers = {"Authorization": f"Bearer {mint_token(keys, SESSION)}"}
    assert await _status_of(server.url(), headers) == 400


async def test_the_token_may_ride_in_the_query(server: BrainServer, keys: KeyPair) -> None:
    url = f"{server.url('/any/path')}?session_id={SESSION}&token={mint_token(keys, SESSION)}"
    async with connect(url) as ws:
        await ws.send(start(SESSION))
        assert (await recv(ws)).WhichOneof("body") == "speech_start"


async def test_relay_leg_carries_two_sessions_on_one_socket(
    server: BrainServer, keys: KeyPair
) -> None:
    ws = await dial(server.relay_url, "", mint_token(keys, RELAY_SUBJECT), relay=True)

    async def framed(count: int) -> list[tuple[str, pb.Envelope]]:
        out = []
        for _ in range(count):
            sid, payload = unframe_relay(await asyncio.wait_for(ws.recv(), 2))
            out.append((sid, decode(payload)))
        return out

    async with ws:
        await ws.send(frame_relay(SESSION, start(SESSION)))
        await ws.send(frame_relay(OTHER, start(OTHER)))
        greetings = await framed(6)
        assert sorted({sid for sid, _ in greetings}) == sorted({SESSION, OTHER})
        # Each session mints its own units: both greetings are unit 1.
        assert {e.speech_start.speech_id for _, e in greetings if e.HasField("speech_start")} == {1}

        await ws.send(frame_relay(OTHER, encode(pb.UserMessage(turn_id=2, text="for other"))))
        await ws.send(frame_relay(SESSION, encode(pb.UserMessage(turn_id=2, text="for first"))))
        replies = await framed(6)
        said = {sid: e.speech_chunk.text for sid, e in replies if e.HasField("speech_chunk")}
        assert said == {OTHER: "You said: for other", SESSION: "You said: for first"}

        # Garbage for one session is answered on that session; the other is untouched.
        await ws.send(frame_relay(SESSION, b"\xff\xfe"))
        sid, env = (await framed(1))[0]
        assert sid == SESSION and env.error.code == pb.ERROR_CODE_MALFORMED

        # Ending one session leaves the other running on the same socket.
        await ws.send(frame_relay(SESSION, encode(pb.End())))
        await ws.send(frame_relay(SESSION, encode(pb.UserMessage(turn_id=3, text="gone"))))
        await ws.send(frame_relay(OTHER, encode(pb.UserMessage(turn_id=3, text="again"))))
        replies = await framed(3)
        assert {sid for sid, _ in replies} == {OTHER}
        assert replies[1][1].speech_chunk.text == "You said: again"


async def test_a_new_relay_prefix_must_open_with_session_start(
    server: BrainServer, keys: KeyPair
) -> None:
    ws = await dial(server.relay_url, "", mint_token(keys, RELAY_SUBJECT), relay=True)
    async with ws:
        stray = str(uuid.uuid4())
        await ws.send(frame_relay(stray, encode(pb.UserMessage(turn_id=2, text="who?"))))
        await ws.send(b"short")  # no room for a prefix: logged, nobody to tell
        await ws.send(frame_relay(SESSION, start(SESSION)))
        sid, payload = unframe_relay(await asyncio.wait_for(ws.recv(), 2))
        assert sid == SESSION and decode(payload).HasField("speech_start")


async def test_connections_are_the_sessions_in_progress_on_both_legs(
    server: BrainServer, keys: KeyPair
) -> None:
    def started() -> list[str]:
        return sorted(c.session.session_id for c in server.connections if c.session is not None)

    assert server.connections == []
    inbound = await dial(server.url(), SESSION, mint_token(keys, SESSION))
    relay = await dial(server.relay_url, "", mint_token(keys, RELAY_SUBJECT), relay=True)
    async with inbound, relay:
        await inbound.send(start(SESSION))
        await relay.send(frame_relay(OTHER, start(OTHER)))
        await recv_arms(inbound, 3)  # the greeting on each leg: the sessions are up
        for _ in range(3):
            await asyncio.wait_for(relay.recv(), 2)
        assert started() == sorted([SESSION, OTHER])
        assert all(isinstance(c.brain, Echo) for c in server.connections)

        await relay.send(frame_relay(OTHER, encode(pb.End())))  # the socket stays open
        await eventually(lambda: started() == [SESSION])
    await eventually(lambda: server.connections == [])
