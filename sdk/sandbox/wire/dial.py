"""Voqalize dials the brain: one WebSocket per call (or one relay socket), never reconnected.

The first connect is retried for a few seconds, because a brain started beside the
sandbox may not be listening yet: a refused connection, a timeout, an HTTP 5xx. An HTTP
401/403 (the credential is wrong) ends that at once, and so does any close once the brain
has answered the upgrade: a session is never reconnected, since a second connection would
reach a fresh session with none of the first one's history (code 4000 says the brain has
no agent for this session).

The handshake window is the opening handshake plus one ping round trip. A brain
that refuses the session by closing right after accepting has sent its close before
it answers that ping, so the close is seen here instead of on the call's first read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from urllib.parse import quote

from websockets.asyncio.client import ClientConnection, connect
from websockets.client import process_exception
from websockets.exceptions import (
    ConnectionClosed,
    InvalidStatus,
    InvalidURI,
    ProtocolError,
    WebSocketException,
)
from websockets.frames import CloseCode
from websockets.uri import parse_uri

from sandbox.errors import UserError
from sandbox.wire.keepalive import PING_TIMEOUT_REASON, LivelyConnection

#: Close code a brain (or the relay) sends when it has no agent for the session.
NO_AGENT_CLOSE_CODE = 4000
#: Largest incoming message accepted. Envelopes are small, but an RTVI payload
#: may be 64 KiB and a brain's own frames are not ours to cap tightly. A larger message is
#: refused by the WebSocket layer from its header, before its payload is read: the socket
#: closes with 1009 and, the socket being the session, the call ends, its report saying why.
MAX_MESSAGE_BYTES = 16 * 2**20
#: Messages the WebSocket layer buffers before it stops reading the socket (TCP then holds
#: the brain back). With the host's own wait (``sandbox.host.brain_side.MAX_WAITING_BYTES``)
#: this bounds what a flood can make the call hold: 4 x 16 MiB at the very worst. Only
#: because messages cross uncompressed (the dial offers no permessage-deflate, as the SDK's
#: server accepts none): compressed, one read of the socket held a dozen 15 MB messages of
#: 15 KB each, and the call 430 MB.
MAX_QUEUED_MESSAGES = 4
#: Keepalive: a ping after this long without a byte from the brain, and the call ends if
#: neither its pong nor anything else comes back within PING_TIMEOUT_S (a brain that
#: stopped answering is not left to hang; one streaming faster than we read is alive).
PING_INTERVAL_S = 20.0
PING_TIMEOUT_S = 20.0

_FIRST_DELAY_S = 0.05
_MAX_DELAY_S = 0.5
_REFUSED_STATUSES = (401, 403)
#: How long the last look for a listener may take, once the dial has given up.
_PROBE_S = 1.0
_START_HINT = "Is it running and listening there? `sandbox brain concierge --port 8765` runs one."


class DialError(UserError):
    """The brain could not be reached; the message says what to do next.

    ``permanent`` is True when retrying cannot help (refused credential, no agent,
    wrong URL) and False when the brain simply did not answer in time.
    """

    def __init__(self, message: str, *, permanent: bool) -> None:
        super().__init__(message)
        self.permanent = permanent


def brain_url_with_session(brain_url: str, session_id: str) -> str:
    """The inbound-leg URL: ``{brain_url}?session_id={session_id}``.

    The path is used verbatim and other query parameters are kept as written; a
    ``session_id`` already in the URL is replaced, so the socket names one session.
    """
    base, hash_mark, fragment = brain_url.partition("#")
    before, _, query = base.partition("?")
    kept = [p for p in query.split("&") if p and p.partition("=")[0] != "session_id"]
    kept.append(f"session_id={quote(session_id, safe='')}")
    return f"{before}?{'&'.join(kept)}{hash_mark}{fragment}"


async def dial(
    brain_url: str,
    session_id: str,
    token: str,
    *,
    relay: bool = False,
    retry_for_s: float = 5.0,
    open_timeout_s: float = 5.0,
) -> ClientConnection:
    """Open the socket to a brain, presenting ``Authorization: Bearer <token>``.

    The inbound leg dials :func:`brain_url_with_session`; the relay leg (``relay=True``)
    dials ``brain_url`` as given (its path should be ``/agent``) with no session query,
    since that one socket carries many sessions. Transient failures (refused, timed
    out, dropped, HTTP 5xx) are retried with short backoff until ``retry_for_s`` has
    passed; each attempt may take ``open_timeout_s``. Raises DialError.
    """
    url = brain_url if relay else brain_url_with_session(brain_url, session_id)
    headers = {"Authorization": f"Bearer {token}"}
    loop = asyncio.get_running_loop()
    deadline = loop.time() + retry_for_s
    delays = _backoff()
    while True:
        try:
            return await _open(brain_url, url, headers, open_timeout_s)
        except (OSError, TimeoutError, WebSocketException) as exc:
            failure = _failure(brain_url, exc)
        if failure.permanent:
            raise failure
        remaining = deadline - loop.time()
        if remaining <= 0:
            if await _accepts_connections(url):  # listening: not what "start it" would fix
                raise DialError(
                    f"the brain at {brain_url} accepts connections, but no WebSocket session "
                    f"opened within {retry_for_s:g} s ({failure}): check that a WebSocket "
                    "server listens there, on that path",
                    permanent=False,
                )
            raise DialError(
                f"could not reach the brain at {brain_url} within {retry_for_s:g} s "
                f"({failure}). {_START_HINT}",
                permanent=False,
            )
        await asyncio.sleep(min(next(delays), remaining))


async def _open(
    brain_url: str, url: str, headers: dict[str, str], open_timeout_s: float
) -> ClientConnection:
    conn = await connect(
        url,
        additional_headers=headers,
        open_timeout=open_timeout_s,
        max_size=MAX_MESSAGE_BYTES,
        max_queue=MAX_QUEUED_MESSAGES,
        compression=None,
        ping_interval=PING_INTERVAL_S,
        ping_timeout=PING_TIMEOUT_S,
        create_connection=LivelyConnection,
    )
    try:
        pong = await conn.ping()
        async with asyncio.timeout(open_timeout_s):
            await pong
    except TimeoutError:
        conn.transport.abort()
        # It answered the upgrade, so it is there: not a brain that is not listening yet.
        raise DialError(
            f"the brain at {brain_url} accepted the WebSocket but did not answer a ping "
            f"within {open_timeout_s:g} s; a session is never reconnected",
            permanent=True,
        ) from None
    except BaseException:
        conn.transport.abort()  # nothing of this connection is worth a closing handshake
        raise
    return conn


async def _accepts_connections(url: str) -> bool:
    """Whether anything accepts a TCP connection where ``url`` points."""
    try:
        uri = parse_uri(url)
        async with asyncio.timeout(_PROBE_S):
            _, writer = await asyncio.open_connection(uri.host, uri.port)
    except (OSError, TimeoutError, InvalidURI):
        return False
    writer.transport.abort()
    return True


def _backoff() -> Iterator[float]:
    delay = _FIRST_DELAY_S
    while True:
        yield delay
        delay = min(delay * 2, _MAX_DELAY_S)


def _failure(brain_url: str, exc: Exception) -> DialError:
    """Word one failed attempt, and say whether another attempt could succeed."""
    if isinstance(exc, InvalidURI):
        return DialError(
            f"{brain_url!r} is not a WebSocket URL: use ws://host:port/path or wss://host/path",
            permanent=True,
        )
    if isinstance(exc, InvalidStatus):
        status = exc.response.status_code
        if status in _REFUSED_STATUSES:
            return DialError(
                f"the brain at {brain_url} refused the connection token (HTTP {status}). "
                "It must verify tokens against this sandbox's public key, which "
                "`sandbox keys` prints.",
                permanent=True,
            )
        if process_exception(exc) is None:
            return DialError(f"HTTP {status}", permanent=False)
        return DialError(
            f"the brain at {brain_url} answered HTTP {status} instead of accepting a "
            "WebSocket. Check the URL: its path is used verbatim.",
            permanent=True,
        )
    if isinstance(exc, ConnectionClosed) and exc.rcvd is None:
        return DialError(
            f"the brain at {brain_url} accepted the WebSocket, then {closed_words(exc)}; "
            "a session is never reconnected",
            permanent=True,
        )
    if isinstance(exc, ConnectionClosed):
        code = exc.rcvd.code if exc.rcvd is not None else None
        reason = exc.rcvd.reason if exc.rcvd is not None else ""
        if code == NO_AGENT_CLOSE_CODE:
            return DialError(
                f"the brain at {brain_url} has no agent for this session (close code "
                f"{code}{': ' + reason if reason else ''}). Check that the agent is "
                "connected and that this brain serves it.",
                permanent=True,
            )
        return DialError(
            f"the brain at {brain_url} accepted the connection and closed it at once "
            f"(code {code}{': ' + reason if reason else ''}); a session is never reconnected",
            permanent=True,
        )
    if process_exception(exc) is None:
        return DialError(_reason(exc), permanent=False)
    return DialError(
        f"the WebSocket handshake with the brain at {brain_url} failed: {exc}", permanent=True
    )


def _reason(exc: Exception) -> str:
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc) or type(exc).__name__
    return str(exc)


def closed_words(exc: ConnectionClosed) -> str:
    """What ended a connection, in words: who closed it and why, the brain's WebSocket fault
    named when the sandbox closed it for one (it has a close frame of its own, ``sent``)."""
    sent, rcvd = exc.sent, exc.rcvd
    if sent is not None and rcvd is None and sent.code != CloseCode.NORMAL_CLOSURE:
        closed = f"the sandbox closed the connection (code {sent.code})"
        if sent.code == CloseCode.MESSAGE_TOO_BIG:
            return (
                f"the brain sent a message over the {MAX_MESSAGE_BYTES // 2**20} MiB limit "
                f"({sent.reason}); {closed}: send speech as chunks of text, as it is produced"
            )
        if sent.code == CloseCode.PROTOCOL_ERROR:
            return f"{_protocol_fault(exc.__cause__, sent.reason)}; {closed}"
        if sent.code == CloseCode.INVALID_DATA:
            return f"the brain sent a text frame that is not valid UTF-8 ({sent.reason}); {closed}"
        if sent.reason == PING_TIMEOUT_REASON:
            return (
                f"the brain stopped answering pings: nothing came back within "
                f"{PING_TIMEOUT_S:g} s; {closed}"
            )
        return f"{closed}: {sent.reason or 'no reason given'}"
    if rcvd is None:
        return "the brain's connection dropped without a close frame"
    reason = f": {rcvd.reason}" if rcvd.reason else ""
    return f"the brain closed the connection (code {rcvd.code}{reason})"


#: A WebSocket protocol error (websockets' words) as what the brain did.
_PROTOCOL_FAULTS = {
    "incorrect masking": "the brain sent a masked frame, which a server never sends "
    "(bytes that are not WebSocket frames)",
    "reserved bits must be 0": "the brain sent a frame with reserved bits set",
    "unexpected continuation frame": "the brain sent a continuation frame with no message "
    "to continue",
    "expected a continuation frame": "the brain started a new message before finishing "
    "the one it was sending",
    "fragmented control frame": "the brain sent a fragmented control frame",
    "control frame too long": "the brain sent a control frame over 125 bytes",
}


def _protocol_fault(cause: BaseException | None, reason: str) -> str:
    if isinstance(cause, ProtocolError) and isinstance(cause.__cause__, ValueError):
        opcode = str(cause.__cause__).split(" ", 1)[0]  # "3 is not a valid Opcode"
        if opcode.isdigit():
            return f"the brain sent a frame with reserved opcode {opcode}"
    return _PROTOCOL_FAULTS.get(reason, f"the brain broke the WebSocket protocol ({reason})")
