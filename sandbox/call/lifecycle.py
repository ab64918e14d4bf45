"""The call's lifecycle: its states, and one table of the transitions allowed between them.

As h11 keeps its connection's (``h11/_state.py``), each machine here is an enum of states, an
enum of the events that move it, and a table of every legal ``(state, event) -> state``. The
core fires events and reads states; an event the table does not list for the state a machine
is in is a bug in the core, raised at once as :class:`IllegalTransition`, never a state nobody
meant. One machine per part of the core:

- :data:`PHASES`, the call's: before SessionStart, live, ending on the brain's End, over;
- :data:`OPENINGS`, the brain's first frame: awaited, reported missing, come;
- :data:`FLOORS`, the caller's side: quiet, speaking, or cutting in over the bot;
- :data:`HOLDS`, the playout's: playing, or held while a voice over the bot is judged.

Pure data and a dictionary look-up: no clock, no I/O.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

S = TypeVar("S", bound=enum.Enum)
E = TypeVar("E", bound=enum.Enum)


class IllegalTransition(RuntimeError):
    """An event fired in a state its table gives no move for: a bug in the core."""


@dataclass
class Machine(Generic[S, E]):
    """A state and the table it moves by."""

    table: Mapping[tuple[S, E], S]
    state: S

    def fire(self, event: E) -> S:
        """Move along the table's transition for ``event``; the new state. Raises
        :class:`IllegalTransition` when the table has none from the state it is in."""
        try:
            self.state = self.table[(self.state, event)]
        except KeyError:
            raise IllegalTransition(
                f"{event.name} in {self.state.name}: {type(self.state).__name__} has no such move"
            ) from None
        return self.state


# ------------------------------------------------------------------ the call


class Phase(enum.Enum):
    """Where the call is in its life."""

    NEW = "new"  # SessionStart has not gone out
    LIVE = "live"
    #: The brain's End came: what it relayed plays out, then the call ends.
    BRAIN_ENDING = "brain ending"
    ENDED = "ended"
    #: Over before SessionStart went out: the dial failed, or the call was ended first.
    NEVER_STARTED = "never started"


class PhaseEvent(enum.Enum):
    """What moves the call's phase."""

    START = "start"  # SessionStart goes out
    NOT_PLACED = "not placed"  # the brain could not be reached
    BRAIN_END = "brain end"  # the brain's End
    #: The call ends: hung up, the link closed, the brain cancelled or sent a fatal Error,
    #: or every unit the brain left at its End has its Finalize.
    END = "end"


PHASES: Mapping[tuple[Phase, PhaseEvent], Phase] = {
    (Phase.NEW, PhaseEvent.START): Phase.LIVE,
    (Phase.NEW, PhaseEvent.NOT_PLACED): Phase.NEVER_STARTED,
    (Phase.NEW, PhaseEvent.END): Phase.NEVER_STARTED,
    (Phase.LIVE, PhaseEvent.BRAIN_END): Phase.BRAIN_ENDING,
    (Phase.LIVE, PhaseEvent.END): Phase.ENDED,
    # A second End changes nothing: the first closed every bracket.
    (Phase.BRAIN_ENDING, PhaseEvent.BRAIN_END): Phase.BRAIN_ENDING,
    (Phase.BRAIN_ENDING, PhaseEvent.END): Phase.ENDED,
}
"""The call's phase: it starts once, ends once, and nothing follows its end."""

#: The phases of a call that is over.
OVER = frozenset({Phase.ENDED, Phase.NEVER_STARTED})


def call_phase() -> Machine[Phase, PhaseEvent]:
    """A new call's phase."""
    return Machine(PHASES, Phase.NEW)


# ------------------------------------------------------- the brain's opening


class Opening(enum.Enum):
    """Whether the brain has sent anything at all ("Silence reads as failure")."""

    AWAITED = "awaited"  # nothing yet
    #: Nothing came within ``SILENT_BRAIN_MS`` of SessionStart, and the user was told once.
    SILENCE_REPORTED = "silence reported"
    HEARD = "heard"  # a frame came, well formed or not


class OpeningEvent(enum.Enum):
    """What moves the brain's opening."""

    FRAME = "frame"  # anything from the brain
    SILENCE = "silence"  # the silent brain is reported


OPENINGS: Mapping[tuple[Opening, OpeningEvent], Opening] = {
    (Opening.AWAITED, OpeningEvent.FRAME): Opening.HEARD,
    (Opening.AWAITED, OpeningEvent.SILENCE): Opening.SILENCE_REPORTED,
    (Opening.SILENCE_REPORTED, OpeningEvent.FRAME): Opening.HEARD,
    (Opening.HEARD, OpeningEvent.FRAME): Opening.HEARD,
}
"""The brain's opening: its silence is reported at most once, and never once it spoke."""


def brain_opening() -> Machine[Opening, OpeningEvent]:
    """A new call's wait for the brain's first frame."""
    return Machine(OPENINGS, Opening.AWAITED)


# -------------------------------------------------------- the caller's side


class Floor(enum.Enum):
    """The caller's side of the floor, for the status line and the idle wait."""

    QUIET = "quiet"
    SPEAKING = "speaking"
    #: Speaking, having cut the bot's turn: a barge-in raised the watermark.
    CUTTING_IN = "cutting in"
    #: Fell quiet after cutting in, their own turn not yet given: heard again, they are
    #: still cutting in.
    CUT_IN_QUIET = "cut in, quiet"


class FloorEvent(enum.Enum):
    """What the caller's side hears."""

    VOICE = "voice"  # the caller's voice began, or a barge-in that cut no turn
    CUT_IN = "cut in"  # a barge-in that raised the watermark
    QUIET = "quiet"  # their sound stopped without a turn, or a turn with no text
    TURN = "turn"  # a turn with text went to the brain


_SPOKEN_OVER = {Floor.CUTTING_IN, Floor.CUT_IN_QUIET}

FLOORS: Mapping[tuple[Floor, FloorEvent], Floor] = {
    **{
        (floor, FloorEvent.VOICE): Floor.CUTTING_IN if floor in _SPOKEN_OVER else Floor.SPEAKING
        for floor in Floor
    },
    **{(floor, FloorEvent.CUT_IN): Floor.CUTTING_IN for floor in Floor},
    **{
        (floor, FloorEvent.QUIET): Floor.CUT_IN_QUIET if floor in _SPOKEN_OVER else Floor.QUIET
        for floor in Floor
    },
    **{(floor, FloorEvent.TURN): Floor.QUIET for floor in Floor},
}
"""The caller's side. Every caller event may come in any state (a script's line needs no voice
before it, a barge-in no voice heard first), so the table is whole; what it says is where
each leads: cutting in lasts until the caller's own turn goes out, however often they fall
quiet before it."""


def caller_floor() -> Machine[Floor, FloorEvent]:
    """A new call's caller side: quiet."""
    return Machine(FLOORS, Floor.QUIET)


# -------------------------------------------------------------- the playout


class Hold(enum.Enum):
    """Whether playout is held while the caller's voice over the bot is judged."""

    PLAYING = "playing"
    HELD = "held"


class HoldEvent(enum.Enum):
    """What holds and releases playout."""

    HOLD = "hold"  # a voice over the bot, something audible in play
    RESUME = "resume"  # it was a backchannel or a noise: playout goes on where it paused
    CUT = "cut"  # playout is cut (a barge-in, a cancel, the end): a hold ends with it


HOLDS: Mapping[tuple[Hold, HoldEvent], Hold] = {
    (Hold.PLAYING, HoldEvent.HOLD): Hold.HELD,
    (Hold.PLAYING, HoldEvent.CUT): Hold.PLAYING,
    (Hold.HELD, HoldEvent.RESUME): Hold.PLAYING,
    (Hold.HELD, HoldEvent.CUT): Hold.PLAYING,
}
"""The playout's hold: held once at a time, resumed only when held."""


def playout_hold() -> Machine[Hold, HoldEvent]:
    """A new call's playout: playing."""
    return Machine(HOLDS, Hold.PLAYING)
