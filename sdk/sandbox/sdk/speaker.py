"""One speaking callback's mouth: its yields become the frames of its units, on its turn."""

from __future__ import annotations

from collections.abc import Callable

from sandbox.sdk.outbox import Outbox
from sandbox.sdk.speech import SpeechChunk, SpeechEnd, SpeechStart
from sandbox.sdk.units import Unit, Units
from sandbox.wire import pb

_ALLOWED = "a speaking callback may yield only SpeechStart(), SpeechChunk(text) and SpeechEnd()"


class Speaker:
    """Checks what a callback yields and turns it into brackets and text.

    A mistake in what was yielded is reported through ``report`` (the brain's log and
    ``on_error``) and the item dropped; the session goes on. A SpeechStart while a unit
    is still open closes that unit first, because the brain has already counted the
    new one and must get a Finalize for it.
    """

    def __init__(
        self,
        turn_id: int,
        units: Units,
        outbox: Outbox,
        report: Callable[[str], None],
        where: str,
    ) -> None:
        self._turn = turn_id
        self._units = units
        self._outbox = outbox
        self._report = report
        self._where = where
        self._unit: Unit | None = None

    async def take(self, item: object) -> None:
        """Act on one yielded item."""
        if isinstance(item, SpeechStart):
            await self._start(item)
        elif isinstance(item, SpeechChunk):
            self._chunk(item)
        elif isinstance(item, SpeechEnd):
            self._end()
        else:
            self._report(
                f"{self._where} yielded {item!r}: {_ALLOWED}; use session methods "
                "(send_rtvi, dispatch, configure, ...) for everything else"
            )

    def close(self) -> None:
        """Close the open unit, if any (the callback returned or was stopped)."""
        unit = self._unit
        if unit is not None and self._units.close(unit):
            self._outbox.put(pb.SpeechEnd(speech_id=unit.speech_id), unit)

    async def _start(self, item: SpeechStart) -> None:
        if self._unit is not None and not self._unit.closed:
            self._report(
                f"{self._where} yielded SpeechStart while unit {self._unit.speech_id} was "
                "still open; the SDK closed that unit first (yield SpeechEnd() to close one)"
            )
            self.close()
        unit = self._units.mint(self._turn)
        item.speech_id = unit.speech_id
        self._unit = unit
        await self._units.take_mouth(unit)
        if unit.closed:
            return  # taken back with cancel_speech before it could open
        unit.queued = True
        self._outbox.put(pb.SpeechStart(speech_id=unit.speech_id, turn_id=self._turn), unit)

    def _chunk(self, item: SpeechChunk) -> None:
        unit = self._unit
        if not isinstance(item.text, str):
            self._report(f"{self._where} yielded {item!r}: SpeechChunk text must be a str")
            return
        if unit is None or (unit.closed and not unit.cancel_requested):
            self._report(
                f"{self._where} yielded SpeechChunk({item.text!r}) outside an open unit: "
                "yield SpeechStart() first; the text was not spoken"
            )
            return
        if unit.closed or not item.text:
            return  # after its own cancel_speech the rest of a unit is ignored, as on the wire
        unit.generated += item.text
        self._outbox.put(pb.SpeechChunk(speech_id=unit.speech_id, text=item.text), unit)

    def _end(self) -> None:
        unit = self._unit
        if unit is None or (unit.closed and not unit.cancel_requested):
            self._report(f"{self._where} yielded SpeechEnd() with no unit open; ignored")
            return
        self.close()
