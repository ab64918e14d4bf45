"""The one way any report from the playout clock or the listener enters the core.

The host, the tests' call rig and the fuzz target all feed the core through these two
functions, so none of them can handle fewer kinds of report than the others: each match is
exhaustive, and a new kind that is not handled here fails the type check.
"""

from __future__ import annotations

from typing import assert_never

from sandbox.call.caller_events import (
    Backchannel,
    BargeIn,
    BotResumes,
    CallerSpeaking,
    DroppedEmpty,
    ListenerEvent,
    OverBot,
    TurnCommitted,
)
from sandbox.call.core import CallCore
from sandbox.call.effects import Effect
from sandbox.call.played import (
    AudioMark,
    ClauseUnsaid,
    Played,
    UnitPlayed,
    UnitUnspoken,
    WordPlayed,
)
from sandbox.call.waterfall import HeardTiming


def feed_played(core: CallCore, played: Played, now: int) -> list[Effect]:
    """What the playout clock reported, into the core at ``now``."""
    match played:
        case WordPlayed(speech_id=sid, word=word):
            return core.word_played(sid, word, now)
        case UnitPlayed(speech_id=sid):
            return core.unit_played(sid, now)
        case UnitUnspoken(speech_id=sid, reason=reason):
            return core.unit_unspoken(sid, reason, now)
        case ClauseUnsaid(speech_id=sid, text=text, reason=reason):
            return core.clause_unsaid(sid, text, reason, now)
        case AudioMark(speech_id=sid, stage=stage, t_ms=t_ms):
            return core.audio_mark(sid, stage, t_ms)
        case _:
            assert_never(played)


def feed_heard(core: CallCore, event: ListenerEvent, now: int) -> list[Effect]:
    """What the listener decided about the caller, into the core at ``now``."""
    match event:
        case CallerSpeaking():
            return core.caller_speaking(now)
        case OverBot():
            return core.caller_over_bot(now)
        case BotResumes():
            return core.bot_keeps_floor(now)
        case BargeIn():
            return core.barge_in(now)
        case Backchannel(text=text, resumed=resumed):
            return core.backchannel(text, now, resumed=resumed)
        case TurnCommitted(text=text, reason=reason):
            timing = HeardTiming(event.t_end_of_speech, event.t_window_closed, event.t_committed)
            return core.caller_turn(text, now, closed_by=reason, heard=timing)
        case DroppedEmpty():
            return core.caller_quiet(now)
        case _:
            assert_never(event)
