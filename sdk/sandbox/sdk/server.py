"""serve(): a WebSocket server hosting one brain instance per session, on both legs.

* **Inbound leg** — any path, ``?session_id=...``: one socket is one session, each
  binary message one envelope. The token (``Authorization: Bearer <jwt>``, a bare JWT
  in that header, or ``?token=``) must verify with ``sub`` equal to the session id.
* **Relay leg** — path ``/agent``: one socket carries many sessions, each message
  prefixed with the session's 16-byte id; a SessionStart under a new prefix starts a
  new session with a fresh brain. Its token's ``sub`` is ``"relay"``.

A refused token is an HTTP 401 at the handshake. A text message or bytes that are not
an envelope get a non-fatal MALFORMED Error and the session continues.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from collections.abc import Callable, Set
from http import HTTPStatus
from types import TracebackType
from urllib.parse import parse_qsl, urlsplit

from websockets.asyncio.server import Server, ServerConnection
from websockets.asyncio.server import serve as ws_serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from sandbox.sdk.brain import Brain
from sandbox.sdk.connection import BrainConnection
from sandbox.sdk.errors import ConfigError
from sandbox.wire import WireError, decode, encode, pb
from sandbox.wire.addresses import port_problem, ws_url
from sandbox.wire.relay import RELAY_PATH, frame_relay, unframe_relay
from sandbox.wire.tokens import (
    RELAY_SUBJECT,
    TokenError,
    load_or_create_keys,
    token_from_request,
    verify_token,
)

_LOG = logging.getLogger("sandbox.sdk.server")

#: Makes a fresh brain for each session.
BrainFactory = Callable[[], Brain]


class BrainServer:
    """A running brain server: ``port``, the ``url`` to dial, the ``connections`` in
    progress, and :meth:`close`."""

    def __init__(
        self, server: Server, host: str, port: int, live: Set[BrainConnection] = frozenset()
    ) -> None:
        """``live``: the server's connections in progress, which it keeps up to date."""
        self._server = server
        self._live = live
        self.host = host
        self.port = port

    @property
    def connections(self) -> list[BrainConnection]:
        """The sessions in progress, one :class:`BrainConnection` each: its ``brain``, and its
        ``session`` once SessionStart was accepted (``sandbox brain --reload`` tells each
        session it reloaded the brain)."""
        return list(self._live)

    def url(self, path: str = "/brain") -> str:
        """The inbound-leg brain_url (any path serves; Voqalize adds ``?session_id=``)."""
        return ws_url(self.host, self.port, path)

    @property
    def relay_url(self) -> str:
        """Where the relay leg connects."""
        return self.url(RELAY_PATH)

    async def close(self) -> None:
        """Stop listening, close every socket (ending its sessions) and wait for them."""
        self._server.close()
        await self._server.wait_closed()

    async def serve_forever(self) -> None:
        """Serve until cancelled."""
        await self._server.serve_forever()

    async def __aenter__(self) -> BrainServer:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


async def serve(
    brain_factory: BrainFactory,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    public_key_pem: bytes | None = None,
) -> BrainServer:
    """Start serving ``brain_factory()`` brains; port 0 picks a free port (see ``.port``).

    Tokens are verified against ``public_key_pem``, by default the sandbox's own key
    (``load_or_create_keys().public_pem``, what ``sandbox keys`` prints). A port outside
    0..65535 is a :class:`ConfigError` before anything is bound.
    """
    problem = port_problem(port, any_free=True)
    if problem is not None:
        raise ConfigError(f"serve(port={port}): {problem}")
    pem = public_key_pem if public_key_pem is not None else load_or_create_keys().public_pem
    host_of = _Host(brain_factory, pem)
    server = await ws_serve(
        host_of.handle,
        host,
        port,
        process_request=host_of.check,
        compression=None,
        # A peer that does not answer a close holds a stop this long, not websockets' 10 s
        # (asyncio.run waits on each cancelled handler again after our own bounded close).
        close_timeout=CLOSE_TIMEOUT_S,
    )
    bound = server.sockets[0].getsockname()[1] if server.sockets else port
    _LOG.info("brain server listening on ws://%s:%d", host, bound)
    if not is_loopback(host):
        _LOG.warning("brain server on %r: %s", host, NOT_LOOPBACK)
    return BrainServer(server, host, int(bound), host_of.live)


#: How long closing one connection waits for the peer's answer.
CLOSE_TIMEOUT_S = 2.0

#: What binding beyond loopback means, said wherever it happens.
NOT_LOOPBACK = (
    "not loopback, so other machines can reach it; each connection still needs a token "
    "signed by this sandbox's key"
)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only (``localhost``, 127.0.0.0/8,
    ``::1``). An empty host binds every interface, so it is not."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _Host:
    """The handshake check and the per-socket handlers."""

    def __init__(self, brain_factory: BrainFactory, public_pem: bytes) -> None:
        self._factory = brain_factory
        self._pem = public_pem
        #: Every connection from its creation until it has closed, on either leg.
        self.live: set[BrainConnection] = set()

    def check(self, ws: ServerConnection, request: Request) -> Response | None:
        """Refuse a handshake without a valid token (401) or a session id (400)."""
        url = urlsplit(request.path)
        query = dict(parse_qsl(url.query))
        if url.path == RELAY_PATH:
            subject = RELAY_SUBJECT
        elif query.get("session_id"):
            subject = query["session_id"]
        else:
            return ws.respond(
                HTTPStatus.BAD_REQUEST,
                "missing ?session_id=: Voqalize dials {brain_url}?session_id={session_id}\n",
            )
        token = token_from_request(dict(request.headers.raw_items()), query)
        if token is None:
            return self._unauthorized(ws, "no token: present it as Authorization: Bearer <jwt>")
        try:
            verify_token(token, self._pem, subject)
        except TokenError as exc:
            return self._unauthorized(ws, str(exc))
        return None

    @staticmethod
    def _unauthorized(ws: ServerConnection, why: str) -> Response:
        _LOG.warning("handshake refused: %s", why)
        return ws.respond(HTTPStatus.UNAUTHORIZED, why + "\n")

    async def handle(self, ws: ServerConnection) -> None:
        """One socket: the relay leg at /agent, the inbound leg anywhere else."""
        assert ws.request is not None  # the handshake has completed
        url = urlsplit(ws.request.path)
        if url.path == RELAY_PATH:
            await self._relay(ws)
        else:
            await self._inbound(ws, dict(parse_qsl(url.query))["session_id"])

    def _brain(self, session_id: str) -> Brain | None:
        try:
            return self._factory()
        except Exception:
            _LOG.exception("[%s] the brain factory failed; the session cannot start", session_id)
            return None

    async def _inbound(self, ws: ServerConnection, session_id: str) -> None:
        brain = self._brain(session_id)
        if brain is None:
            await ws.close(1011, "the brain could not be created")
            return

        async def send(env: pb.Envelope) -> None:
            await ws.send(encode(env))

        conn = BrainConnection(brain, send, session_id=session_id)
        self.live.add(conn)
        try:
            reader = asyncio.create_task(self._read_inbound(ws, conn))
            ended = asyncio.create_task(conn.wait_closed())
            await asyncio.wait({reader, ended}, return_when=asyncio.FIRST_COMPLETED)
            reader.cancel()
            await conn.close()
            await asyncio.gather(reader, ended, return_exceptions=True)
        finally:
            self.live.discard(conn)

    @staticmethod
    async def _read_inbound(ws: ServerConnection, conn: BrainConnection) -> None:
        try:
            async for message in ws:
                try:
                    env = decode(message)
                except WireError as exc:
                    conn.report_malformed(str(exc))
                    continue
                await conn.feed(env)
        except ConnectionClosed:
            pass

    async def _relay(self, ws: ServerConnection) -> None:
        live: dict[str, BrainConnection] = {}
        seen: set[str] = set()
        watchers: set[asyncio.Task[None]] = set()

        async def forget(session_id: str, conn: BrainConnection) -> None:
            await conn.wait_closed()
            live.pop(session_id, None)
            self.live.discard(conn)

        try:
            async for message in ws:
                try:
                    session_id, payload = unframe_relay(message)
                except WireError as exc:
                    _LOG.warning("relay message dropped (no session to tell): %s", exc)
                    continue
                conn = live.get(session_id)
                try:
                    env = decode(payload)
                except WireError as exc:
                    if conn is not None:
                        conn.report_malformed(str(exc))
                    else:
                        _LOG.warning("[%s] relay message dropped: %s", session_id, exc)
                    continue
                if conn is None:
                    conn = self._open_relayed(ws, session_id, env, seen)
                    if conn is None:
                        continue
                    live[session_id] = conn
                    watcher = asyncio.create_task(forget(session_id, conn))
                    watchers.add(watcher)
                    watcher.add_done_callback(watchers.discard)
                await conn.feed(env)
        except ConnectionClosed:
            pass
        finally:
            await asyncio.gather(*(conn.close() for conn in list(live.values())))
            self.live.difference_update(live.values())
            for watcher in watchers:
                watcher.cancel()

    def _open_relayed(
        self, ws: ServerConnection, session_id: str, env: pb.Envelope, seen: set[str]
    ) -> BrainConnection | None:
        """A new session under a new prefix, which must open with SessionStart."""
        if session_id in seen:
            _LOG.warning("[%s] relay frame for a session that has ended: dropped", session_id)
            return None
        if env.WhichOneof("body") != "session_start":
            _LOG.warning(
                "[%s] relay frame %s for an unknown session: dropped (a session opens "
                "with SessionStart)",
                session_id,
                env.WhichOneof("body"),
            )
            return None
        seen.add(session_id)
        brain = self._brain(session_id)
        if brain is None:
            return None

        async def send(out: pb.Envelope) -> None:
            await ws.send(frame_relay(session_id, encode(out)))

        conn = BrainConnection(brain, send, session_id=session_id)
        self.live.add(conn)
        return conn
