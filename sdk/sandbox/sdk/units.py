"""Speech units from the brain's end: minting, the one open bracket, and the Finalize FIFO."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from sandbox.sdk.errors import SessionClosed
from sandbox.sdk.events import Finalize


@dataclass(eq=False)
class Unit:
    """One unit the brain opened, and where its bracket and its report stand."""

    speech_id: int
    turn_id: int
    done: asyncio.Future[Finalize]
    #: Everything the brain yielded into the unit while it was open.
    generated: str = ""
    #: It is the open unit: no other may open until it closes.
    holds_mouth: bool = False
    #: Its SpeechStart was handed to the writer.
    queued: bool = False
    #: The SDK has closed the bracket (queued SpeechEnd or SpeechCancel, or never queued it).
    closed: bool = False
    #: Closed by ``cancel_speech``: later chunks and SpeechEnd are ignored, as on the wire.
    cancel_requested: bool = False
    #: Its SpeechStart reached the wire, so Voqalize owes it a Finalize.
    on_wire: bool = False
    #: Its turn was dead before SpeechStart left: never on the wire, reported by the SDK.
    swallowed: bool = False
    #: Its SpeechCancel reached the wire.
    cut: bool = False
    #: Chunks the writer dropped because the turn died first.
    discarded: int = field(default=0)


class Units:
    """Mints speech ids, holds the mouth, and hands out Finalizes in the order units opened.

    Only one unit is open at a time — the mouth — because the wire brackets one unit
    at a time: a second speaking callback waits at its SpeechStart until the open unit
    closes. Every unit opened gets exactly one Finalize, in opening order: from
    Voqalize for a unit that reached the wire, from the SDK (``heard=""``) for one
    whose turn was already dead, so a brain's FIFO pairing never drifts.
    """

    def __init__(self, on_ready: Callable[[], None]) -> None:
        self._on_ready = on_ready
        self._next_id = 1
        self._by_id: dict[int, Unit] = {}
        self._pending: deque[Unit] = deque()
        self._mouth = asyncio.Lock()

    def mint(self, turn_id: int) -> Unit:
        """A new unit with the next speech id (session-monotonic), owed one Finalize."""
        unit = Unit(self._next_id, turn_id, asyncio.get_running_loop().create_future())
        self._next_id += 1
        self._by_id[unit.speech_id] = unit
        self._pending.append(unit)
        return unit

    async def take_mouth(self, unit: Unit) -> None:
        """Wait until no other unit is open; the mouth is free again when ``unit`` closes.

        Waiters are served in minting order, so units reach the wire in id order. A
        unit whose task is stopped while waiting never reaches the wire and is
        reported by the SDK (``heard=""``), because the brain has already counted it.
        """
        try:
            await self._mouth.acquire()
        except asyncio.CancelledError:
            self.drop(unit)
            raise
        unit.holds_mouth = True
        if unit.closed:  # taken back while it waited
            self._release(unit)

    def drop(self, unit: Unit) -> None:
        """A unit that will never reach the writer: close it and report it heard as nothing."""
        self.close(unit)
        unit.swallowed = True
        self.resolve(unit, "")

    def close(self, unit: Unit) -> bool:
        """Close a unit's bracket and free the mouth; False if it was already closed."""
        if unit.closed:
            return False
        unit.closed = True
        self._release(unit)
        return True

    def _release(self, unit: Unit) -> None:
        if unit.holds_mouth:
            unit.holds_mouth = False
            self._mouth.release()

    def get(self, speech_id: int) -> Unit | None:
        """The unit with this id, if this session opened one."""
        return self._by_id.get(speech_id)

    def resolve(self, unit: Unit, heard: str) -> Finalize | None:
        """Record what was heard of a unit; None if it already had its one Finalize."""
        if unit.done.done():
            return None
        fin = Finalize(speech_id=unit.speech_id, heard=heard, generated=unit.generated)
        unit.done.set_result(fin)
        self._on_ready()
        return fin

    def pop_ready(self) -> list[Finalize]:
        """The Finalizes now deliverable: resolved units at the head of the opening order."""
        ready: list[Finalize] = []
        while self._pending and self._pending[0].done.done():
            ready.append(self._pending.popleft().done.result())
        return ready

    def abandon(self) -> int:
        """The session is over: fail every unresolved report; return how many there were."""
        left = 0
        for unit in self._pending:
            if not unit.done.done():
                unit.done.set_exception(
                    SessionClosed("the session ended before the unit's Finalize")
                )
                unit.done.exception()  # retrieved here: only cancel_speech awaits it
                left += 1
        self._pending.clear()
        return left
