"""The brain's end of one call, as the host runs it: frames sent, frames read and handed to
the core with the reader held back while the core is behind, and the link's close.

Each frame is recorded as it crosses, whichever way; what the brain sends is handed to the
core as an input posted to the host's loop, in the order it was read.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Protocol

from websockets.exceptions import ConnectionClosed

from sandbox.call.brain_frames import opens_unit, speech_chars
from sandbox.call.core import CallCore
from sandbox.call.effects import Effect
from sandbox.call.inputs import BrainClosed, BrainInput, BrainMalformed, FromBrain, UnitCounted
from sandbox.call.surplus import Surplus, SurplusFrame
from sandbox.host.posted import Posted
from sandbox.host.warp import WarpClock
from sandbox.record.recorder import FrameRecord, Recorder
from sandbox.wire import pb
from sandbox.wire.codec import WireError, decode, encode
from sandbox.wire.dial import closed_words
from sandbox.wire.keepalive import LivelyConnection
from sandbox.wire.relay import frame_relay, unframe_relay

log = logging.getLogger(__name__)

#: How long, once the call has ended, the closing handshake may take before the link is
#: dropped: a brain that streams on past End holds its close frame behind everything it
#: sent (the WebSocket layer would wait 10 s for it), and what it sends then is counted.
CLOSE_WITHIN_S = 0.25
#: The brain's frames read but not yet handled by the core, by count and by size. The
#: reader waits while either is reached (one frame always gets through), so a brain that
#: sends faster than the call can handle is held back by its own socket (after the
#: WebSocket layer's own buffer, ``sandbox.wire.dial.MAX_QUEUED_MESSAGES``) instead of
#: growing a queue here.
MAX_WAITING_FRAMES = 64
MAX_WAITING_BYTES = 2**20


class BrainLink(Protocol):
    """The brain's end of the wire: a WebSocket connection, or an in-process brain."""

    async def send(self, message: bytes) -> None:
        """Send one binary message."""

    async def close(self) -> None:
        """Close the link; the session ends with it."""

    def __aiter__(self) -> AsyncIterator[str | bytes]:
        """Messages from the brain until the link closes."""


@dataclass
class BrainSide:
    """One call's link to its brain: :meth:`send` and :meth:`read` record each frame as it
    crosses; what is read goes to the core through ``post``, on the call's clock ``now``."""

    core: CallCore
    conn: BrainLink
    recorder: Recorder
    post: Callable[[Posted], None]
    now: Callable[[], int]
    relay: bool = False
    warp: WarpClock | None = None
    #: Told of every frame kept in the record, as it crosses (the screen, benches, tests).
    on_frame: list[Callable[[FrameRecord], None]] = field(default_factory=list)
    _waiting: list[int] = field(default_factory=list)  # sizes of the frames not yet taken
    _taken: asyncio.Event = field(default_factory=asyncio.Event)
    #: Frames only counted, by unit, waiting for the core (see _counted).
    _counted_posts: dict[int, Posted] = field(default_factory=dict)
    _starts_waiting: int = 0  # SpeechStarts read from the brain, not yet handled by the core
    #: When the frame the core is taking now was read off the link (``time.monotonic()``),
    #: or None while it takes anything else: see :meth:`CallHost.wall_of_effects`.
    taking_read_at: float | None = None

    @property
    def frames_waiting(self) -> int:
        """Frames read from the brain and not yet handled by the core."""
        return len(self._waiting)

    def let_read_on(self) -> None:
        """The call is ending: a reader waiting for room reads on."""
        self._taken.set()

    async def send(self, env: pb.Envelope, t_ms: int, surplus: SurplusFrame | None = None) -> None:
        """Record one envelope and send it; a closed link is the core's to hear of.
        ``t_ms``: when the core decided it, the time of the records stored with it, so a
        replay standing at a decision shows the frames it sent. ``surplus``: the record
        keeps a sample of such frames (see :class:`~sandbox.call.effects.SendFrame`)."""
        payload = encode(env)
        self._record("out", env, payload, surplus, t_ms=t_ms)
        if self.warp is not None:
            self.warp.brain_io()
        if self.relay:
            payload = frame_relay(self.core.session_id, payload)
        try:
            await self.conn.send(payload)
        except ConnectionClosed as exc:
            self._closed(closed_words(exc))

    async def close(self) -> bool:
        """Close the link: the closing handshake, for CLOSE_WITHIN_S at most; then the
        connection is dropped under it, and the close given as long again to finish.
        False: the handshake did not complete in time."""
        closing = asyncio.ensure_future(self.conn.close())
        done, _ = await asyncio.wait({closing}, timeout=CLOSE_WITHIN_S)
        if done:
            if (failed := closing.exception()) is not None:
                # The call is over either way; what the close said goes to the log.
                log.warning("closing the brain's link failed", exc_info=failed)
            return True
        _abort(self.conn)
        done, _ = await asyncio.wait({closing}, timeout=CLOSE_WITHIN_S)
        if done:
            closing.exception()  # what the close met was the drop: nothing to tell
        else:
            closing.cancel()
            log.warning("the brain's link did not close within %g s", 2 * CLOSE_WITHIN_S)
        return False

    async def read(self) -> None:
        """Read the brain's messages until the link closes, each recorded and handed on."""
        counted = 0
        try:
            async for message in self.conn:
                if self.core.ended is not None:
                    # The call is closing: read on to the close, but only count what a brain
                    # streaming past the end sends, and let the close go on between them
                    # (messages already buffered are read without the loop turning).
                    if not self.recorder.count_past_sample(Surplus.AFTER_END, self.now()):
                        self._receive(message)
                    await asyncio.sleep(0)
                    continue
                while (
                    self._waiting
                    and self.core.ended is None  # it ended while the reader waited: read on
                    and (
                        len(self._waiting) >= MAX_WAITING_FRAMES
                        or sum(self._waiting) >= MAX_WAITING_BYTES
                    )
                ):
                    self._taken.clear()
                    await self._taken.wait()
                if not self._receive(message):
                    continue
                counted += 1
                if counted % MAX_WAITING_FRAMES == 0:
                    # Frames only counted wait for nothing, and buffered ones are read without
                    # the loop turning: the call goes on between them.
                    await asyncio.sleep(0)
        except ConnectionClosed as exc:
            self._closed(closed_words(exc))
            return
        self._closed("the brain closed the connection")

    def _record(
        self,
        direction: str,
        env: pb.Envelope,
        raw: bytes,
        surplus: SurplusFrame | None = None,
        t_ms: int | None = None,
    ) -> bool:
        """Record a frame as it crosses (or at ``t_ms``); False: past a sample, it was only
        counted."""
        stamp = self.now() if t_ms is None else t_ms
        if not self.on_frame:  # described only for someone: reading the frames describes them
            return self.recorder.keep_frame(direction, env, stamp, raw, surplus)
        kept = self.recorder.frame(direction, env, stamp, raw, surplus)
        if kept is not None:
            self._show(kept)
        return kept is not None

    def _show(self, record: FrameRecord) -> None:
        for listener in self.on_frame:
            listener(record)

    def _closed(self, words: str) -> None:
        self.post(Posted(BrainClosed(words)))

    def _receive(self, message: str | bytes) -> bool:
        """Record a message from the brain and hand it to the core; True when it was only
        counted (see _counted)."""
        if self.warp is not None:
            self.warp.brain_io(incoming=True)
        try:
            payload = message
            if self.relay:
                sid, payload = unframe_relay(message)
                if sid != self.core.session_id:
                    raise WireError(f"relay frame for another session ({sid})")
            env = decode(payload)
        except WireError as exc:
            detail = str(exc)
            kept = self.recorder.undecodable("in", detail, message, self.now())
            if kept is not None:  # past the first few, malformed frames are only counted
                self._show(kept)
            if self.core.ended is None:
                self._post_frame(len(message), BrainMalformed(detail))
            return False
        assert isinstance(payload, bytes)  # decode() refuses a text message
        surplus = self.core.surplus(env, starts_waiting=self._starts_waiting > 0)
        recorded = self._record("in", env, payload, surplus)
        if surplus is not None and not recorded and not surplus.handled:
            self._counted(surplus, env)
            return True
        if self.core.ended is None:  # an ended call takes nothing more: none waits for it
            self._post_frame(len(payload), FromBrain(env))
        return False

    def _counted(self, surplus: SurplusFrame, env: pb.Envelope) -> None:
        """A frame the call has no use for, past its sample, is not handled one by one: the
        core hears how much text such frames of a unit held, in one event for all that
        arrive before it is taken (so a brain streaming for ever costs the call its reading
        alone, and keeps pace with it, its pings' answers too)."""
        sid = surplus.speech_id
        if surplus.kind is Surplus.AFTER_END or self.core.ended is not None:
            return  # nothing left to learn from it
        chars = speech_chars(env)
        waiting = self._counted_posts.get(sid)
        if waiting is not None and isinstance(waiting.fed, UnitCounted):
            waiting.fed = UnitCounted(sid, waiting.fed.chars + chars)
            return

        def taken(_effects: list[Effect]) -> None:
            del self._counted_posts[sid]

        posted = Posted(UnitCounted(sid, chars), taken)
        self._counted_posts[sid] = posted
        self.post(posted)

    def _post_frame(self, size: int, fed: BrainInput) -> None:
        """Queue a frame's input, stamped with when it arrived (see _arrived); its taking
        makes room for the reader's next frame."""
        self._waiting.append(size)
        read_at = self._arrived()
        opens = isinstance(fed, FromBrain) and opens_unit(fed.env)
        self._starts_waiting += opens

        def taken(_effects: list[Effect]) -> None:
            self._starts_waiting -= opens
            self._waiting.remove(size)
            self._taken.set()
            self.taking_read_at = read_at

        self.post(Posted(fed, taken))

    def _arrived(self) -> float:
        """When the frame being read reached this process: on a WebSocket, when its bytes
        last arrived (this frame's or a later one's: never earlier than it came), so a loop
        busy with thousands of calls does not add its wait for the reader to the brain's
        time; else now."""
        if isinstance(self.conn, LivelyConnection) and self.conn.arrived_at is not None:
            return self.conn.arrived_at
        return time.monotonic()


def _abort(conn: BrainLink) -> None:
    """Drop a WebSocket link's connection without its closing handshake (a link to a brain
    in this process has no transport: its close does not wait on the brain)."""
    transport = getattr(conn, "transport", None)
    if isinstance(transport, asyncio.WriteTransport):
        transport.abort()
