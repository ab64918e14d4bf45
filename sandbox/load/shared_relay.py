"""One relay socket for many calls, as Voqalize's Cortex relay carries them.

Every message on the relay leg starts with the 16 bytes of its session's id
(:mod:`sandbox.wire.relay`). :class:`SharedRelay` dials the brain's ``/agent`` once and
hands each call a :class:`RelayedLink`: what the call sends goes out on the shared socket
(the call's host adds the prefix itself), and what arrives is routed to the call whose
prefix it carries. A call ending closes its link, never the socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from sandbox.wire.codec import WireError
from sandbox.wire.dial import dial
from sandbox.wire.relay import unframe_relay
from sandbox.wire.tokens import RELAY_SUBJECT, load_or_create_keys, mint_token

log = logging.getLogger(__name__)


class RelayedLink:
    """One call's end of the shared socket (a :class:`~sandbox.host.brain_side.BrainLink`)."""

    def __init__(self, relay: SharedRelay, session_id: str) -> None:
        self._relay = relay
        self.session_id = session_id
        self._inbox: asyncio.Queue[bytes | None] = asyncio.Queue()

    async def send(self, message: bytes) -> None:
        """Send one prefixed message on the shared socket."""
        await self._relay.conn.send(message)

    async def close(self) -> None:
        """The call is over: stop routing to it (the socket stays open for the others)."""
        self._relay.forget(self.session_id)
        self._inbox.put_nowait(None)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while (message := await self._inbox.get()) is not None:
            yield message

    def deliver(self, message: bytes | None) -> None:
        """A message for this call, or None: the socket closed."""
        self._inbox.put_nowait(message)


class SharedRelay:
    """The one relay socket and the calls riding it; see the module doc."""

    def __init__(self, conn: ClientConnection) -> None:
        self.conn = conn
        self._links: dict[str, RelayedLink] = {}
        self._reader = asyncio.create_task(self._read())
        #: Messages that named no call of ours (a session already over, a bad prefix).
        self.strays = 0

    @classmethod
    async def open(cls, relay_url: str) -> SharedRelay:
        """Dial ``relay_url`` (its path is ``/agent``) with a relay token; raises DialError."""
        token = mint_token(load_or_create_keys(), RELAY_SUBJECT)
        # On the relay leg the session id only names the dial in errors: no query is added.
        return cls(await dial(relay_url, "relay", token, relay=True))

    def link(self, session_id: str) -> RelayedLink:
        """A new call's link; its messages are routed to it from now on."""
        link = RelayedLink(self, session_id)
        self._links[session_id] = link
        return link

    def forget(self, session_id: str) -> None:
        """Stop routing to a call that has ended."""
        self._links.pop(session_id, None)

    async def close(self) -> None:
        """Close the socket and wait for the reader; every link still open ends with it."""
        await self.conn.close()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader

    async def _read(self) -> None:
        try:
            async for message in self.conn:
                self._route(message)
        except ConnectionClosed:
            pass
        finally:
            for link in list(self._links.values()):
                link.deliver(None)

    def _route(self, message: str | bytes) -> None:
        try:
            session_id, _payload = unframe_relay(message)
        except WireError as exc:
            self.strays += 1
            log.warning("relay message with no session to route to: %s", exc)
            return
        link = self._links.get(session_id)
        if link is None:
            self.strays += 1
            return
        assert isinstance(message, bytes)  # unframe_relay refused a text message
        link.deliver(message)
