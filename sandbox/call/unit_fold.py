"""A stored call's units, rebuilt from the core's own record of them.

:class:`UnitFold` is handed a stored call's events in the order they were recorded: the
core's records (:mod:`sandbox.call.unit_records`), the text it relayed to the playout
(:class:`~sandbox.call.effects.SpeakText`) and the words the playout released
(:class:`~sandbox.call.played.WordPlayed`). It keeps each unit as the core had it at that
moment, as a :class:`~sandbox.call.units.Unit`: its text, the words heard so far walked
through it the way the core walks them (so a unit still in play when a call was killed reads
back with exactly the words that were committed), and, once the core sealed it, the fate and
the heard text the core recorded. It decides nothing the core did not: the rebuilt report,
the replay's timeline and the page all read units here, so they agree with the live report.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from sandbox.call.effects import SpeakText
from sandbox.call.played import WordPlayed
from sandbox.call.unit_records import TextKept, UnitOpened, UnitSealed, WatermarkRaised
from sandbox.call.units import Fate, Unit


class UnitFold:
    """A stored call's units as of the last value folded; see the module doc."""

    def __init__(self) -> None:
        self._units: dict[int, Unit] = {}
        #: The barge-in watermark as of the last value folded.
        self.watermark = 0

    @property
    def units(self) -> Mapping[int, Unit]:
        """Every unit opened so far by its id, in the order they opened (a read-only view)."""
        return MappingProxyType(self._units)

    def apply(self, value: object) -> int | None:
        """Fold one stored event's value: the id of the unit it changed, or None (nothing
        changed, or not one of the values this fold reads)."""
        match value:
            case UnitOpened(speech_id=sid, turn_id=turn, voice=voice, language=language):
                if sid in self._units:
                    return None
                self._units[sid] = Unit(sid, turn, voice, language)
                return sid
            case SpeakText(speech_id=sid, text=text):
                unit = self._in_play(sid)
                if unit is not None:
                    unit.relay(text)
            case TextKept(speech_id=sid, text=text):
                unit = self._units.get(sid)
                if unit is not None:
                    unit.discard(text)
            case WordPlayed(speech_id=sid, word=word):
                unit = self._in_play(sid)
                if unit is not None:
                    unit.play(word)
            case UnitSealed(speech_id=sid, fate=fate, heard=heard, unspoken=unspoken):
                unit = self._in_play(sid)
                if unit is not None:
                    unit.sealed_as_recorded(fate, heard, unspoken)
            case WatermarkRaised(through_turn=through):
                self.watermark = max(self.watermark, through)
                return None
            case _:
                return None
        return sid if sid in self._units else None

    def crash(self) -> list[int]:
        """The call's process died here: every unit still in play was cut by the crash (fate
        ``crashed``, its heard text what played); the ids of those units."""
        cut = [u for u in self._units.values() if u.fate is None]
        for unit in cut:
            unit.seal(Fate.CRASHED)
        return [u.speech_id for u in cut]

    def _in_play(self, speech_id: int) -> Unit | None:
        """The unit, while its fate is not sealed (a word racing a cut lands after its heard
        text is fixed, as in the core)."""
        unit = self._units.get(speech_id)
        return unit if unit is not None and unit.fate is None else None
