"""The one writer: frames leave in the order they were queued, and dead speech never leaves.

Everything the brain sends goes through here, so a dispatch between two chunks lands
between them on the wire too. Speech frames carry their unit, and the writer decides
at the last moment — against the watermark as it stands then — whether they go:

* a SpeechStart whose turn is already dead is swallowed: the unit never reaches the
  wire, and the SDK reports it itself (``heard=""``) once its bracket closes;
* a SpeechChunk of a dead turn, a cut unit or an already-finalized one is dropped;
* a SpeechEnd of a unit that reached the wire always goes, so brackets balance.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from google.protobuf.message import Message

from sandbox.sdk.turns import Turns
from sandbox.sdk.units import Unit, Units
from sandbox.wire import codec, pb

#: The transport: put one envelope on the wire.
Send = Callable[[pb.Envelope], Awaitable[None]]


@dataclass(frozen=True)
class _Out:
    env: pb.Envelope
    unit: Unit | None


class Outbox:
    """Queue frames with :meth:`put`; :meth:`run` is the writer task."""

    def __init__(
        self,
        send: Send,
        turns: Turns,
        units: Units,
        on_broken: Callable[[BaseException], None],
        log: logging.LoggerAdapter[logging.Logger],
    ) -> None:
        self._send = send
        self._turns = turns
        self._units = units
        self._on_broken = on_broken
        self._log = log
        self._queue: asyncio.Queue[_Out | None] = asyncio.Queue()
        self._closed = False

    @property
    def closed(self) -> bool:
        """No more frames are taken."""
        return self._closed

    def put(self, body: Message, unit: Unit | None = None) -> bool:
        """Queue one body (wrapped in an Envelope); False once the outbox is closed."""
        if self._closed:
            return False
        self._queue.put_nowait(_Out(codec.envelope(body), unit))
        return True

    def close(self, *, flush: bool) -> None:
        """Take no more frames; the writer stops after sending (flush) or dropping the queue."""
        if self._closed:
            return
        self._closed = True
        if not flush:
            while not self._queue.empty():
                self._queue.get_nowait()
        self._queue.put_nowait(None)

    async def run(self) -> None:
        """Write queued frames until closed. A failed send closes the outbox and reports it."""
        while (item := await self._queue.get()) is not None:
            if not self._admit(item):
                continue
            try:
                await self._send(item.env)
            except Exception as exc:
                self._closed = True
                self._on_broken(exc)
                return

    def _admit(self, item: _Out) -> bool:
        unit = item.unit
        if unit is None:
            return True
        arm = item.env.WhichOneof("body")
        dead = self._turns.dead(unit.turn_id)
        if arm == "speech_start":
            if dead:
                unit.swallowed = True
                self._log.debug("unit %d not sent: turn %d is dead", unit.speech_id, unit.turn_id)
                return False
            unit.on_wire = True
            return True
        if arm == "speech_chunk":
            if unit.on_wire and not unit.cut and not dead and not unit.done.done():
                return True
            unit.discarded += 1
            return False
        # speech_end or speech_cancel: the bracket closes here.
        if unit.swallowed:
            self._units.resolve(unit, "")
            return False
        if unit.discarded:
            self._log.debug(
                "unit %d: %d chunk(s) of dead turn %d discarded",
                unit.speech_id,
                unit.discarded,
                unit.turn_id,
            )
        if arm == "speech_end":
            return unit.on_wire and not unit.cut
        if not unit.on_wire or unit.done.done():
            return False  # its one Finalize is already in: a cancel now would get nothing back
        unit.cut = True
        return True
