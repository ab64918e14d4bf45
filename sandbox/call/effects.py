"""What the call core asks of the world. The host carries each out; the core does no I/O.

Each effect is for one port (see the unions at the end): a frame for the brain's link
(:data:`WireEffect`), a command for the playout clock (:data:`PlayoutEffect`), a change for
the recognizer (:data:`ListenEffect`), something for the screen and the record
(:data:`ScreenEffect`), or the core's record of its units and turns, for the stored session only
(:data:`RecordEffect`). What the user should be told comes out structured (a protocol
violation with its code, a stalled turn with how long it waited); the words are the UI's.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from sandbox.call.outcome import Outcome
from sandbox.call.settings import Settings
from sandbox.call.surplus import SurplusFrame
from sandbox.call.turn_records import TurnRecord
from sandbox.call.unit_records import UnitRecord
from sandbox.wire import pb


class CallState(enum.StrEnum):
    """Where the call stands, for the status line; the value is how it reads."""

    CONNECTING = "connecting"
    LISTENING = "listening"
    CALLER_SPEAKING = "caller speaking"
    THINKING = "thinking"
    SPEAKING = "speaking"
    PAUSED = "paused: deciding"
    INTERRUPTED = "interrupted"
    ENDED = "ended"


@dataclass(frozen=True)
class SendFrame:
    """Put one envelope on the wire to the brain. ``surplus``: the record has no more use for
    it (the answer to a Request past the call's cap, a Finalize of a unit past it), so it
    keeps a sample of such frames and counts the rest."""

    env: pb.Envelope
    surplus: SurplusFrame | None = None


@dataclass(frozen=True)
class OpenUnit:
    """A unit opened: its text will be spoken in this voice and language, after older units."""

    speech_id: int
    voice: int
    language: int


@dataclass(frozen=True)
class SpeakText:
    """Relayed text for a unit, to synthesize and queue for playout in order."""

    speech_id: int
    text: str


@dataclass(frozen=True)
class CloseUnit:
    """No more text will come for this unit; report it played once its audio is out."""

    speech_id: int


class CutReason(enum.StrEnum):
    """Why playout is cut."""

    BARGE_IN = "barge-in"  # the caller took the floor
    CANCEL = "cancel"  # the brain's SpeechCancel
    END = "end"  # the call ended


@dataclass(frozen=True)
class CutPlayout:
    """Silence the speaker now and drop everything queued."""

    reason: CutReason


@dataclass(frozen=True)
class PausePlayout:
    """The caller's voice began over the bot: fade out and hold while it is judged."""


@dataclass(frozen=True)
class ResumePlayout:
    """The caller's voice over the bot did not take the floor: go on where playout paused."""


@dataclass(frozen=True)
class ToApp:
    """An RTVI frame for the app (screen), already checked against the whitelist.
    ``recorded``: False past the call's cap on RTVI kept (``MAX_RTVI_KEPT``): it crosses,
    and is only counted."""

    type: str
    data: str
    id: str | None
    recorded: bool = True


@dataclass(frozen=True)
class ListenWith:
    """The recognizer's settings changed: language (iso code) and patience 0..10."""

    language: str
    patience: int


@dataclass(frozen=True)
class ProtocolViolation:
    """The brain broke the wire: Voqalize sent it an Error with ``code`` (PROTOCOL,
    MALFORMED) and dropped the frame; the call goes on."""

    code: str
    detail: str


@dataclass(frozen=True)
class FrameDropped:
    """A frame from the brain was dropped without an Error back (it came before the session
    existed); ``reason`` says why."""

    reason: str


@dataclass(frozen=True)
class BrainError:
    """The brain reported an Error; a fatal one ends the call."""

    code: str
    message: str
    fatal: bool


@dataclass(frozen=True)
class StepForUnknownTurn:
    """A TurnStep named a turn this session never minted: recorded and flagged, and (as for
    every TurnStep) nothing went back to the brain."""

    turn_id: int
    kind: str
    name: str


@dataclass(frozen=True)
class BrainStalled:
    """A turn has waited ``waited_ms`` for an answer; the call goes on."""

    turn_id: int
    waited_ms: int


@dataclass(frozen=True)
class DeadAir:
    """Dead air mid-unit: unit ``speech_id`` of turn ``turn_id`` is open, and for
    ``silent_ms`` the brain has sent nothing for it and nothing has played. The runtime does
    nothing about it (the unit stays open); it is shown while it lasts."""

    turn_id: int
    speech_id: int
    silent_ms: int


@dataclass(frozen=True)
class DeadAirEnded:
    """The dead air :class:`DeadAir` announced is over (the brain sent more for an open
    unit, or the unit was closed, cut or the call ended) after ``silent_ms``."""

    turn_id: int
    speech_id: int
    silent_ms: int


@dataclass(frozen=True)
class ConfigApplied:
    """A Config landed (from the brain or the user); these settings are now in force."""

    settings: Settings


@dataclass(frozen=True)
class ConfigRejected:
    """A Config was refused whole, for this reason; nothing changed."""

    problem: str


@dataclass(frozen=True)
class AppFrameRefused:
    """An RTVI message from the app was not sent to the brain, for this reason."""

    problem: str


@dataclass(frozen=True)
class UnitChanged:
    """A unit's text, heard prefix or fate changed: redraw it."""

    speech_id: int


@dataclass(frozen=True)
class CallerShown:
    """A caller-side line to show. ``kind``: spoken or typed (a committed turn, with its
    ``turn_id``), or backchannel (not a turn: ``turn_id`` None; ``resumed``: the bot paused
    for it, then went on)."""

    kind: str
    text: str
    turn_id: int | None
    resumed: bool = False


@dataclass(frozen=True)
class CallerIdle:
    """The caller stayed silent past the idle timeout: UserIdle minted ``turn_id``."""

    turn_id: int
    level: int
    idle_ms: int


@dataclass(frozen=True)
class StateChanged:
    """The call state for the status line changed."""

    state: CallState


class EndedBy(enum.StrEnum):
    """Who or what ended a call (a report's ``ended_by``); the value is the stored word."""

    CALLER = "caller"  # hung up, or the script ended
    BRAIN = "brain"  # the brain's End
    BRAIN_CANCEL = "brain_cancel"  # the brain cancelled the call
    BRAIN_CLOSED = "brain_closed"  # the brain's socket closed
    BRAIN_ERROR = "brain_error"  # the brain's fatal Error
    DIAL_FAILED = "dial_failed"  # the brain could not be reached
    # Never ended by a live call: one still running, or a stored one whose process died.
    UNFINISHED = "unfinished"


@dataclass(frozen=True)
class CallEnded:
    """The call is over; close the socket and write the report."""

    outcome: Outcome
    ended_by: EndedBy
    detail: str


Notice = (
    ProtocolViolation
    | FrameDropped
    | BrainError
    | BrainStalled
    | DeadAir
    | DeadAirEnded
    | StepForUnknownTurn
    | ConfigApplied
    | ConfigRejected
    | AppFrameRefused
)
"""The effects that are only for the user to read."""

# The effects by the port that carries each out: the host routes every effect to exactly one
# (``sandbox.call.ports``), and a port is handed nothing but its own.

WireEffect = SendFrame
"""For the brain's link: an envelope to send."""

PlayoutEffect = OpenUnit | SpeakText | CloseUnit | CutPlayout | PausePlayout | ResumePlayout
"""For the playout clock (:class:`~sandbox.call.ports.Playout`)."""

ListenEffect = ListenWith
"""For the recognizer (:class:`~sandbox.call.ports.Listening`)."""

ScreenEffect = Notice | ToApp | UnitChanged | CallerShown | CallerIdle | StateChanged | CallEnded
"""For the screen and the record: what the user is shown, and the app's RTVI frames."""

RecordEffect = UnitRecord | TurnRecord
"""For the record: what the core decided about its units (:mod:`sandbox.call.unit_records`)
and recorded of its turns and the brain's wire (:mod:`sandbox.call.turn_records`), stored
with the session's events as the call runs, and read by every reader of a call."""

Effect = WireEffect | PlayoutEffect | ListenEffect | ScreenEffect | RecordEffect
"""Everything the core asks of the world, in the order it must happen."""


def config_answer(effects: list[Effect]) -> str | None:
    """What a settings change came to: the refusal in words, or None when it applied."""
    for effect in effects:
        if isinstance(effect, ConfigRejected):
            return effect.problem
        if isinstance(effect, ConfigApplied):
            return None
    return "the call has ended"
