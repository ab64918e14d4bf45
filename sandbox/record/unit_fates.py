"""Each unit's fate read off a stored call's frames: the one the core sealed, in its words.

The core seals a unit's fate at the moment of its cause (:mod:`sandbox.call.core`), and most
causes leave a frame at that very moment: a SpeechStart for a turn already at or below the
watermark (``dead``), a SpeechEnd or the brain's End closing a unit with nothing relayed
(``silent``), a SpeechCancel the session honours (``cancelled``, the whole floor), an
Interruption (``barged``, everything in play). The rest show only once the unit's Finalize
went out: every word of a closed unit heard is ``played``, a unit the playout could not speak
is ``unspoken`` (its event may follow the Finalize at the same instant, so a fate is read on
asking, not fixed at the Finalize), and anything else the end of the call cut
(``abandoned``). The rebuilt report of a stored call and the replay's timeline both read
fates here, so neither invents a word the core never gives.
"""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.call.units import Bracket, Fate
from sandbox.record.recorder import FrameRecord
from sandbox.wire import pb

_HONOURS_CANCEL = pb.Capability.Name(pb.CAPABILITY_SPEECH_CANCEL)


@dataclass
class _Seen:
    """One unit as the wire showed it."""

    turn_id: int
    fate: Fate | None  # sealed by a cause the wire showed
    relayed: str = ""
    bracket: Bracket = Bracket.OPEN
    heard: str | None = None  # its Finalize's heard text, once that went out


class FateReader:
    """Fed a call's frames in the order they crossed (and which units the playout could not
    speak), answers each unit's fate; see the module doc."""

    def __init__(self) -> None:
        self.watermark = 0
        # A session whose SessionStart did not offer SpeechCancel plays a cancelled unit out.
        self._honours_cancel = True
        self._units: dict[int, _Seen] = {}
        self._unspoken: set[int] = set()

    def frame(self, frame: FrameRecord) -> None:
        """Read one frame."""
        f, sid = frame.fields, stored_int(frame.fields.get("speech_id"))
        unit = self._units.get(sid)
        match (frame.dir, frame.type):
            case ("out", "session_start"):
                self._honours_cancel = _HONOURS_CANCEL in f.get("capabilities", ())
            case ("in", "speech_start") if unit is None:
                turn = stored_int(f.get("turn_id"))
                dead = Fate.DEAD_ON_ARRIVAL if turn <= self.watermark else None
                self._units[sid] = _Seen(turn, dead)
            case ("in", "speech_chunk") if unit is not None:
                if unit.bracket is Bracket.OPEN and unit.fate is None:  # else never relayed
                    unit.relayed += str(f.get("text", ""))
            case ("in", "speech_end") if unit is not None and unit.bracket is Bracket.OPEN:
                self._close(unit)
            case ("in", "end"):  # the brain hangs up: what it left open closes where it stops
                for left in self._in_play():
                    if left.bracket is Bracket.OPEN:
                        self._close(left)
            case ("in", "speech_cancel") if self._honours_cancel and unit is not None:
                # A second cancel, or one of a unit already finalized, cuts nothing.
                if unit.heard is None and unit.bracket is not Bracket.CANCELLED:
                    unit.bracket = Bracket.CANCELLED
                    self._cut(Fate.CANCELLED)
            case ("out", "interruption"):
                self.watermark = max(self.watermark, stored_int(f.get("through_turn")))
                self._cut(Fate.BARGED)
            case ("out", "finalize") if unit is not None:
                unit.heard = str(f.get("heard_text", ""))

    def unspoken(self, speech_id: int) -> None:
        """The playout could not speak this unit, or a clause of it (its events)."""
        self._unspoken.add(speech_id)

    def fate(self, speech_id: int) -> Fate | None:
        """The unit's fate as the core sealed it; None while it is in play (or never opened)."""
        unit = self._units.get(speech_id)
        if unit is None or unit.fate is not None or unit.heard is None:
            return None if unit is None else unit.fate
        if speech_id in self._unspoken:
            return Fate.UNSPOKEN
        if unit.bracket is Bracket.ENDED and unit.heard == unit.relayed:
            return Fate.PLAYED
        return Fate.ABANDONED

    def _in_play(self) -> list[_Seen]:
        """The units no cause has sealed and whose Finalize has not gone out."""
        return [u for u in self._units.values() if u.fate is None and u.heard is None]

    def _close(self, unit: _Seen) -> None:
        """A bracket closed: a unit with nothing relayed is silent there and then."""
        unit.bracket = Bracket.ENDED
        if unit.fate is None and not unit.relayed:
            unit.fate = Fate.SILENT

    def _cut(self, fate: Fate) -> None:
        for unit in self._in_play():
            unit.fate = fate


def stored_int(value: object) -> int:
    """A stored field as an integer; 0 when a damaged row holds anything else."""
    if isinstance(value, int):
        return value
    try:
        return int(str(value))
    except ValueError:
        return 0
