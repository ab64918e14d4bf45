"""Frames from the brain that the call has no more use for, by kind.

A brain can send valid frames for ever: past a unit's limit (``MAX_UNIT_CHARS`` characters or
``MAX_UNIT_CHUNKS`` chunks, :mod:`sandbox.call.units`), for a unit that is over (its turn
died, it was cancelled, or it already played out), or after the call or the brain ended.
Kept, every one of them would grow the call's memory, its report and its store without
bound: an endless stream over a caller who barged in after 20 words and hung up kept 142,697
frames (an 18 MB report, a 30 MB store, 316 MB of memory at its peak) for a call of half a
second. The core says which kind a frame is (:meth:`sandbox.call.core.CallCore.surplus`);
the recorder keeps a sample of each kind, per unit, and counts the rest. A frame kept is
handled as any other; one only counted is not handled one by one: the core hears how much
text such frames held (:meth:`sandbox.call.core.CallCore.counted`), so the record still says
what happened, and a brain streaming for ever costs the call little more than its reading.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Surplus(enum.StrEnum):
    """Why a frame is one the call has no more use for; the value names it in the record."""

    #: A chunk for a unit that passed its limit: its text is counted, not kept.
    PAST_CAP = "past_cap"
    #: A frame for a unit that is over (cut by a barge-in or a newer turn, cancelled, dead on
    #: arrival, played out), or a SpeechStart for a turn already dead: never spoken.
    DEAD_UNIT = "dead_unit"
    #: Anything after the call ended, or after the brain's End.
    AFTER_END = "after_end"
    #: A chunk or SpeechEnd for a unit never opened (and none waiting to be): each draws a
    #: non-fatal PROTOCOL Error while it is kept; past the sample it is only counted.
    UNKNOWN_UNIT = "unknown_unit"
    #: A TurnStep past its turn's first ``MAX_TURN_STEPS`` (all turns never minted share one
    #: count), or any when the call does not list TurnSteps: a trace, owed nothing.
    STEP_PAST_CAP = "step_past_cap"
    #: An RTVI frame past the call's first ``MAX_RTVI_KEPT``: it still crosses to the app
    #: (the contract's), but the record keeps a sample and counts the rest.
    RTVI_PAST_CAP = "rtvi_past_cap"
    #: A Request past the call's first ``MAX_REQUESTS_KEPT``, or the Response it is owed:
    #: each is still answered as 001 requires, and the record keeps a sample of the rest.
    REQUEST_PAST_CAP = "request_past_cap"
    #: A frame of a unit opened past the call's first ``MAX_UNITS_KEPT`` (its SpeechStart,
    #: chunks, close and Finalize): the contract sets no limit on units, so each is still
    #: honoured, and the record keeps a sample of the rest.
    UNIT_PAST_CAP = "unit_past_cap"
    #: A brain's non-fatal Error past the call's ``MAX_ERRORS``: counted by the core
    #: (``errors_uncounted``), a sample kept by the record.
    ERROR_PAST_CAP = "error_past_cap"


@dataclass(frozen=True)
class SurplusFrame:
    """One frame's kind of surplus and the unit it names (0: none; the call's)."""

    kind: Surplus
    speech_id: int = 0

    @property
    def handled(self) -> bool:
        """Handled by the core even when only counted: what it carries still crosses, or is
        still owed its answer."""
        return self.kind in _HANDLED


#: The kinds the core handles whether or not the record keeps them.
_HANDLED = frozenset(
    {Surplus.RTVI_PAST_CAP, Surplus.REQUEST_PAST_CAP, Surplus.UNIT_PAST_CAP, Surplus.ERROR_PAST_CAP}
)
