"""What the listening side tells the core: the caller began a turn, spoke over the bot, took
the floor or let it go, said a backchannel, committed a turn or said nothing after all.

The audio layer's listener and floor judge produce these; the host hands each to the core
(see :mod:`sandbox.host.session`). They live beside the core, not in the audio layer, so the
host and a simulated call know them without loading the speech stack.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal


class TurnClose(enum.StrEnum):
    """How a caller's turn was closed (a report's ``turn_closes``); the value is the word."""

    FINAL = "final"  # the voice ended it: a fall, or a question's rise
    CONFIDENT = "confident"  # the words or the turn model said finished
    SILENCE = "silence"  # the maximum wait
    TYPED = "typed"  # typed, not spoken
    GIVEN = ""  # a line given whole (a caller script's in a simulated call): nothing closed it


class TranscriptMend(enum.StrEnum):
    """How a turn's transcript was brought back to what its clip could hold before it became
    the turn (a report's ``turn_mends``; see :mod:`sandbox.audio.plausible`)."""

    LOOPED = "looped"  # a sentence three times or more, cut back to its first pass
    DOUBLED = "doubled"  # the whole turn twice where the voice held it once
    OVERLONG = "overlong"  # more words than the voice's length allows, read again
    TAIL = "tail"  # words placed after the voice ended, dropped


#: How the endpointer closes a spoken turn.
Reason = Literal[TurnClose.FINAL, TurnClose.CONFIDENT, TurnClose.SILENCE]


@dataclass(frozen=True)
class CallerSpeaking:
    """A caller turn began at ``t``."""

    t: int


@dataclass(frozen=True)
class OverBot:
    """The caller's voice began over the bot at ``t_onset``: pause playout (at ``t``)."""

    t_onset: int
    t: int


@dataclass(frozen=True)
class BargeIn:
    """The caller took the floor: speech began at ``t_onset`` and was judged real at
    ``t_decided`` (ms); ``why``: what decided it (a sentence's length, a floor word...)."""

    t_onset: int
    t_decided: int
    why: str = ""


@dataclass(frozen=True)
class BotResumes:
    """The voice that began at ``t_onset`` did not take the floor; the bot goes on at ``t``.
    ``why``: noise, backchannel or undecided; ``text``: its transcript, if one was judged."""

    t_onset: int
    t: int
    why: str
    text: str = ""


#: What the floor judge decides about a voice over the bot.
FloorEvent = OverBot | BargeIn | BotResumes


@dataclass(frozen=True)
class Backchannel:
    """Speech under the bot that did not take the floor, voiced from ``t_onset`` to
    ``t_end``."""

    text: str
    t_onset: int
    t_end: int
    resumed: bool = False


@dataclass(frozen=True)
class TurnCommitted:
    """One committed caller turn."""

    text: str
    reason: Reason
    t_end_of_speech: int
    t_window_closed: int
    t_committed: int
    #: How its transcript was mended (None: as Whisper wrote it).
    mend: TranscriptMend | None = None


@dataclass(frozen=True)
class DroppedEmpty:
    """A turn closed with nothing transcribed; nothing is handed on."""

    reason: Reason


#: Everything the listener reports, in the order it happened.
ListenerEvent = (
    CallerSpeaking | OverBot | BotResumes | BargeIn | Backchannel | TurnCommitted | DroppedEmpty
)
