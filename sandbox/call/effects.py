"""What the call core asks of the world. The host carries each out; the core does no I/O."""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.wire import pb


@dataclass(frozen=True)
class SendFrame:
    """Put one envelope on the wire to the brain."""

    env: pb.Envelope


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


@dataclass(frozen=True)
class CutPlayout:
    """Silence the speaker now and drop everything queued. ``reason``: barge-in, cancel, end."""

    reason: str


@dataclass(frozen=True)
class ToApp:
    """An RTVI frame for the app (screen), already checked against the whitelist."""

    type: str
    data: str
    id: str | None


@dataclass(frozen=True)
class ListenWith:
    """The recognizer's settings changed: language (iso code) and patience 0..10."""

    language: str
    patience: int


@dataclass(frozen=True)
class Notice:
    """Something to show the user in words. ``level``: info, warning, error."""

    level: str
    text: str


@dataclass(frozen=True)
class UnitChanged:
    """A unit's text, heard prefix or fate changed: redraw it."""

    speech_id: int


@dataclass(frozen=True)
class CallerShown:
    """A caller-side line to show: a committed turn, a typed turn, a backchannel, an idle nudge."""

    kind: str
    text: str
    turn_id: int | None


@dataclass(frozen=True)
class StateChanged:
    """The call state for the status line changed."""

    state: str


@dataclass(frozen=True)
class CallEnded:
    """The call is over; close the socket and write the report."""

    outcome: str
    ended_by: str
    detail: str


Effect = (
    SendFrame
    | OpenUnit
    | SpeakText
    | CloseUnit
    | CutPlayout
    | ToApp
    | ListenWith
    | Notice
    | UnitChanged
    | CallerShown
    | StateChanged
    | CallEnded
)
