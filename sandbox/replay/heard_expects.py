"""Expectations drawn from what a stored call's caller heard, one table per caller turn:
``sandbox sessions script ID --expect`` writes them on the steps of the call's caller script
(:mod:`.caller_script`), so the script passes against the brain that made the call and a
turn that went wrong becomes a failing test once its table is edited to say what should have
been heard.

Each turn's table (the step keys of :mod:`sandbox.caller.expect`):

- ``heard_contains``: each sentence the caller heard of the answer (all of it, every unit
  on the turn), as a phrase;
- ``reply_within_ms``: the time the answer took, from the end of the caller's turn (its
  voice end where the call measured one, else the line or idle nudge) to the answer's first
  word at the output, plus :func:`reply_allowance`'s margin;
- ``no_errors``: whether no Error crossed from the turn until the caller's next one.

A turn with nothing heard has no phrases and no reply time.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from sandbox.call.effects import CallerIdle, CallerShown
from sandbox.call.played import WordPlayed
from sandbox.caller.expect import EXPECTING_KINDS
from sandbox.caller.script_limits import MAX_PHRASE_CHARS, MAX_PHRASES, REPLY_WITHIN_MS
from sandbox.record.report import Report
from sandbox.record.store import StoredEvent

#: The least margin over the time a reply took: a brain's reply time varies run to run.
REPLY_MARGIN_MS = 500
#: Margins are rounded up to this, so the script reads as a person would write it.
REPLY_ROUNDING_MS = 100
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"\w")


def reply_allowance(took_ms: int) -> int:
    """``reply_within_ms`` for an answer that took ``took_ms``: that time, plus half as much
    again and at least :data:`REPLY_MARGIN_MS`, rounded up to a tenth of a second."""
    within = took_ms + max(REPLY_MARGIN_MS, took_ms // 2)
    rounded = math.ceil(within / REPLY_ROUNDING_MS) * REPLY_ROUNDING_MS
    return min(REPLY_WITHIN_MS.high, max(REPLY_WITHIN_MS.low, rounded))


def phrases(heard: str) -> list[str]:
    """``heard`` as phrases a script can hold: its sentences, each at most
    :data:`MAX_PHRASE_CHARS` (cut at a word), at most :data:`MAX_PHRASES` of them."""
    found = []
    for sentence in _SENTENCE_END.split(heard.strip()):
        if len(sentence) > MAX_PHRASE_CHARS:
            sentence = sentence[:MAX_PHRASE_CHARS].rsplit(" ", 1)[0]
        if _WORD.search(sentence):
            found.append(sentence)
    return found[:MAX_PHRASES]


class HeardExpects:
    """The expectation table of each caller turn of one stored call (see the module doc),
    asked of the event that made the turn (a caller's line, an idle nudge)."""

    def __init__(self, events: Sequence[StoredEvent], report: Report) -> None:
        self._units = report.units
        self._errors = [e.t_ms for e in report.errors]
        self._first_word: dict[int, int] = {}
        for event in events:
            if isinstance(event.value, WordPlayed):
                self._first_word.setdefault(event.value.speech_id, event.t_ms)
        self._voice_end = {
            turn.turn_id: turn.timeline.voice_end
            for turn in report.turns or ()
            if isinstance(turn.timeline.voice_end, int)
        }
        # When each caller turn began: a turn's errors are those until the next one's.
        self._turn_times = sorted(
            e.t_ms
            for e in events
            if isinstance(e.value, CallerIdle)
            or (isinstance(e.value, CallerShown) and e.value.kind != "backchannel")
        )

    def __call__(self, kind: str, event: StoredEvent) -> dict[str, Any] | None:
        """The table for the step of ``kind`` that ``event`` made; None for a step that
        mints no turn (a backchannel)."""
        value = event.value
        if kind not in EXPECTING_KINDS or not isinstance(value, CallerShown | CallerIdle):
            return None
        turn = value.turn_id  # None only on a backchannel, which has no table
        units = [u for u in self._units if turn is not None and u.turn_id == turn]
        heard = " ".join(u.heard for u in units if u.heard)
        table: dict[str, Any] = {}
        said = phrases(heard)
        if said:
            table["heard_contains"] = said
        starts = [self._first_word[u.speech_id] for u in units if u.speech_id in self._first_word]
        if said and starts and turn is not None:
            began = self._voice_end.get(turn, event.t_ms)
            table["reply_within_ms"] = reply_allowance(max(0, min(starts) - began))
        later = [t for t in self._turn_times if t > event.t_ms]
        until = later[0] if later else math.inf
        table["no_errors"] = not any(event.t_ms <= t < until for t in self._errors)
        return table
