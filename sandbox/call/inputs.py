"""What the call core is fed: every input of a call, as data.

The core takes one :data:`CoreInput` at a time through :meth:`CallCore.handle`, each with
the call's time in milliseconds. Inputs are plain frozen values, so a call's input stream
can be queued, stored and fed through a fresh core again: the brain's frames and its link
(:class:`FromBrain`, :class:`BrainMalformed`, :class:`BrainClosed`, :class:`UnitCounted`),
the caller's and the user's actions (:class:`LineGiven`, :class:`AppFrame`,
:class:`Configure`, :class:`HangUp`, and the listener's events of
:mod:`sandbox.call.caller_events`), the playout's reports (:mod:`sandbox.call.played`) and
the session's own moments (:class:`Start`, :class:`NotPlaced`, :class:`Tick`).
"""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.call.caller_events import ListenerEvent
from sandbox.call.played import Played
from sandbox.wire import pb


@dataclass(frozen=True)
class Start:
    """Open the session: SessionStart goes out and mints turn 1."""


@dataclass(frozen=True)
class NotPlaced:
    """The brain could not be reached (``reason``, in words): the call ends before it began."""

    reason: str


@dataclass(frozen=True)
class Tick:
    """Time passed: whatever timer is due fires."""


@dataclass(frozen=True)
class FromBrain:
    """One decoded envelope from the brain."""

    env: pb.Envelope


@dataclass(frozen=True)
class BrainMalformed:
    """The brain sent something that is not an envelope; ``detail`` says what, in words."""

    detail: str


@dataclass(frozen=True)
class BrainClosed:
    """The brain's link closed (``detail``: how, in words): the socket is the session."""

    detail: str


@dataclass(frozen=True)
class UnitCounted:
    """Frames from the brain for unit ``speech_id`` that were only counted (surplus past the
    record's sample, see :mod:`sandbox.call.surplus`), holding ``chars`` characters of text."""

    speech_id: int
    chars: int


@dataclass(frozen=True)
class LineGiven:
    """A caller's line given whole: a caller script's in a simulated call, or ``typed`` in
    the app (nothing endpointed it; a spoken turn is a
    :class:`~sandbox.call.caller_events.TurnCommitted`)."""

    text: str
    typed: bool = False


@dataclass(frozen=True)
class AppFrame:
    """An RTVI message from the app, by its type's wire name (``send-text`` is a caller
    turn; the rest cross to the brain)."""

    rtvi_type: str
    data: str
    rtvi_id: str | None = None


@dataclass(frozen=True)
class Configure:
    """A settings change from the user, landing as a brain's Config would."""

    config: pb.Config


@dataclass(frozen=True)
class HangUp:
    """The caller ends the call; ``why``: what ended it on their side, when it was not the
    person (their audio file ran out, the demo's scene ended)."""

    why: str = ""


#: The brain's side of the link.
BrainInput = FromBrain | BrainMalformed | BrainClosed | UnitCounted
#: What the caller and the user do, beside what the listener hears.
CallerInput = LineGiven | AppFrame | Configure | HangUp
#: Everything the core is fed.
CoreInput = Start | NotPlaced | Tick | BrainInput | CallerInput | ListenerEvent | Played
