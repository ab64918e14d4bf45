"""The core's ports: what the host needs of a playout clock and of a listener.

Both the simulated playout and the audio engine's speech output implement
:class:`Playout`; the audio engine implements :class:`Listening`. The host carries each
of the core's effects to the one port it concerns, once: a port is handed only its own
kind (:data:`~sandbox.call.effects.PlayoutEffect` to :func:`play`,
:data:`~sandbox.call.effects.ListenEffect` to :func:`listen`).
"""

from __future__ import annotations

from typing import Protocol, assert_never

from sandbox.call.effects import (
    CloseUnit,
    CutPlayout,
    ListenEffect,
    OpenUnit,
    PausePlayout,
    PlayoutEffect,
    ResumePlayout,
    SpeakText,
)
from sandbox.call.played import Played


class Playout(Protocol):
    """A playout clock, simulated or real: the only source of "heard"."""

    def open_unit(self, speech_id: int, voice: int, language: int, now: int) -> None:
        """A unit opened: its text plays in this voice, after every older unit."""

    def speak(self, speech_id: int, text: str, now: int) -> None:
        """More relayed text for an open unit, to play in order."""

    def close_unit(self, speech_id: int, now: int) -> None:
        """No more text comes for this unit; report it played once its audio is out."""

    def cut(self, now: int) -> None:
        """Silence now and drop everything queued (a pause ends with it)."""

    def pause(self, now: int) -> None:
        """Fade out now and hold: nothing more plays, or counts as heard, until resumed."""

    def resume(self, now: int) -> None:
        """Go on from exactly where the pause began."""

    def next_deadline(self) -> int | None:
        """When ``advance`` next has something to report (None: it wakes the host itself)."""

    def advance(self, now: int) -> list[Played]:
        """Everything that played up to ``now``, in order."""


class Listening(Protocol):
    """The recognizer's side of the call: told when the caller is heard differently."""

    def listen_with(self, language: str, patience: int) -> None:
        """Transcribe in ``language`` (an iso code) and close turns at ``patience`` 0..10."""


def play(effect: PlayoutEffect, now: int, playout: Playout) -> None:
    """Carry one playout effect out on ``playout``."""
    match effect:
        case OpenUnit(speech_id=sid, voice=voice, language=language):
            playout.open_unit(sid, voice, language, now)
        case SpeakText(speech_id=sid, text=text):
            playout.speak(sid, text, now)
        case CloseUnit(speech_id=sid):
            playout.close_unit(sid, now)
        case CutPlayout():
            playout.cut(now)
        case PausePlayout():
            playout.pause(now)
        case ResumePlayout():
            playout.resume(now)
        case _:
            assert_never(effect)


def listen(effect: ListenEffect, listening: Listening) -> None:
    """Carry one recognizer effect out on ``listening``."""
    listening.listen_with(effect.language, effect.patience)
