"""A saved session's caller side as a caller script (the TOML ``sandbox call --script`` plays).

Read from the session's events, in the order they were recorded: each spoken or typed turn,
each backchannel and barge-in at the same point of the bot's reply (how many of its words
had played since the caller's last turn: a word, not a millisecond, since a new brain's
replies differ), each RTVI message the app sent, and a silence for each idle nudge. A turn
counts as a barge-in when the call went *interrupted* just before it (the caller took the
floor over the bot). A typed turn counts as one too when it cut the bot: typed over a
reply (enter while it plays, or F2 with text in the box) the core cuts the playout for a
barge-in, and typed while an answer was still owed it raises the watermark (its record of
the Interruption it sends); either is in the record, with how many words had played when it
happened. The app's RTVI messages are read off the frames that carried them: the core relays
their payload without reading it, so it keeps no record of them. A simulated call keeps its
speaking rate.

The script is written by the TOML rule (:func:`~sandbox.record.plain_text.toml_text`), so
any text a caller said reads back as it was, yet no control character, bidi override or
tag character in it reaches the terminal it is printed on raw.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Sequence
from typing import Any

from sandbox.call.brain_frames import recorded_rtvi
from sandbox.call.effects import (
    CallEnded,
    CallerIdle,
    CallerShown,
    CallState,
    CutPlayout,
    CutReason,
    EndedBy,
    StateChanged,
)
from sandbox.call.played import WordPlayed
from sandbox.call.unit_records import WatermarkRaised
from sandbox.caller.script_limits import SILENCE_MS
from sandbox.record.plain_text import toml_text, visible
from sandbox.record.recorder import FrameRecord
from sandbox.record.store import StoredEvent
from sandbox.wire.catalog import rtvi_spelling

#: The states a caller's hang-up cuts the bot in (its reply playing or owed).
_OVER_BOT = (CallState.SPEAKING, CallState.THINKING, CallState.PAUSED)
#: Silence added after an idle nudge's own, so the nudge fires before the caller goes on.
IDLE_MARGIN_MS = 500

Step = dict[str, Any]
#: A step's expectation table from its kind and the event that made it (None: no table).
StepExpects = Callable[[str, StoredEvent], dict[str, Any] | None]


def caller_steps(
    frames: Sequence[FrameRecord], events: Sequence[StoredEvent], expect: StepExpects | None = None
) -> list[Step]:
    """The caller's steps, in order (see the module doc), from a stored call's frames and
    its events with the core's records in them (:attr:`StoredCall.records`); with
    ``expect``, each step that minted a turn carries the table it gives for the step's kind
    and event (an idle nudge's on the first of its silences)."""
    steps: list[tuple[int, int, Step]] = []  # (t_ms, order, step): app frames merge by time
    interruptions = [e.t_ms for e in events if isinstance(e.value, WatermarkRaised)]
    words = 0
    line_ms = -1  # when the caller's last line (or idle nudge) was
    interrupted_at: int | None = None  # words played when the caller took the floor
    cut_at: int | None = None  # words played when a barge-in cut the playout
    for event in events:
        match event.value:
            case WordPlayed():
                words += 1
            case StateChanged(state=CallState.INTERRUPTED):
                interrupted_at = words
            case CutPlayout(reason=CutReason.BARGE_IN):
                cut_at = words if cut_at is None else cut_at
            case CallerShown(kind=kind, text=text):
                if kind == "backchannel":
                    step: Step = {"backchannel": text, "after_words": words}
                elif kind == "typed":
                    over = interrupted_at if interrupted_at is not None else cut_at
                    if over is None and any(line_ms < t <= event.t_ms for t in interruptions):
                        over = words  # typed while the answer was owed: that turn died
                    step = (
                        {"type": text} if over is None else {"barge_in": text, "after_words": over}
                    )
                elif interrupted_at is not None:
                    step = {"barge_in": text, "after_words": interrupted_at}
                else:
                    step = {"say": text}
                _expecting(step, event, expect)
                steps.append((event.t_ms, event.seq, step))
                if kind != "backchannel":
                    words, interrupted_at, cut_at, line_ms = 0, None, None, event.t_ms
            case CallerIdle(idle_ms=idle_ms):
                silence = idle_ms + IDLE_MARGIN_MS
                while silence > 0:  # in steps a script allows: an idle may be longer than one
                    step_ms = min(silence, SILENCE_MS.high)
                    step = {"silence_ms": step_ms}
                    if silence == idle_ms + IDLE_MARGIN_MS:  # the nudge comes in the first
                        _expecting(step, event, expect)
                    steps.append((event.t_ms, event.seq, step))
                    silence -= step_ms
                words, interrupted_at, cut_at, line_ms = 0, None, None, event.t_ms
    for place, record in enumerate(frames):
        if record.dir == "out" and recorded_rtvi(record.type):
            # After the events of its millisecond: a caller's action there came first.
            steps.append((record.t_ms, len(events) + place, {"rtvi": _app_frame(record.fields)}))
    return [step for _t, _order, step in sorted(steps, key=lambda s: (s[0], s[1]))]


def _expecting(step: Step, event: StoredEvent, expect: StepExpects | None) -> None:
    """``step`` with the expectation ``expect`` gives it, if any."""
    if expect is not None and (table := expect(next(iter(step)), event)) is not None:
        step["expect"] = table


def hang_up_over_bot(events: Sequence[StoredEvent]) -> int | None:
    """How many words of the bot's reply had played when the caller hung up over it (typed
    mode's ctrl+q while a reply plays or an answer is owed, a script's ``end = "now"``; F2
    then ctrl+q: where F2 cut it), or None when the caller hung up on a listening bot or did
    not end the call. A caller script has no step for it (``end = "now"`` does not wait for
    a word): a re-drive plays it."""
    words, cut_at, state = 0, 0, ""
    for event in events:
        match event.value:
            case WordPlayed():
                words += 1
            case CallerShown(kind=kind) if kind != "backchannel":
                words = 0
            case CallerIdle():
                words = 0
            case StateChanged(state=now):
                state = now
                cut_at = words if state == CallState.INTERRUPTED else cut_at
            case CallEnded(ended_by=ended_by):
                if ended_by != EndedBy.CALLER:
                    return None
                if state == CallState.INTERRUPTED:
                    return cut_at
                return words if state in _OVER_BOT else None
    return None


def idle_wait(events: Sequence[StoredEvent]) -> int | None:
    """The caller's idle wait (ms) as the call's first nudge shows it, or None if none
    fired: a re-drive starts with it, so each silence step meets its nudge (a brain that
    changed it by Config changes it again)."""
    for event in events:
        if isinstance(nudge := event.value, CallerIdle) and nudge.level == 1:
            return nudge.idle_ms
    return None


def speaking_rate(events: Sequence[StoredEvent]) -> int | None:
    """A simulated call's ms a word (the median gap between a unit's words), or None."""
    gaps = []
    last: dict[int, int] = {}
    for event in events:
        if isinstance(word := event.value, WordPlayed):
            if word.speech_id in last:
                gaps.append(event.t_ms - last[word.speech_id])
            last[word.speech_id] = event.t_ms
    return round(statistics.median(gaps)) if gaps else None


def script_toml(steps: list[Step], ms_per_word: int | None = None, source: str = "") -> str:
    """The steps as a caller script (any caller text round-trips: see the module doc)."""
    head = f"# the caller's side of session {visible(source)}\n" if source else ""
    script: dict[str, Any] = {} if ms_per_word is None else {"ms_per_word": ms_per_word}
    return head + toml_text({**script, "step": steps})


def _app_frame(fields: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": rtvi_spelling(fields.get("type", 0))}
    data = str(fields.get("data", ""))
    try:
        out["data"] = json.loads(data) if data else {}
    except json.JSONDecodeError:
        out["data"] = data
    if not _tomlable(out["data"]):  # TOML has no null: the data goes as its JSON text
        out["data"] = data
    if "id" in fields:
        out["id"] = fields["id"]
    return out


def _tomlable(value: Any) -> bool:
    """Whether TOML can hold ``value`` (JSON's null has no TOML spelling)."""
    if isinstance(value, dict):
        return all(_tomlable(v) for v in value.values())
    if isinstance(value, list):
        return all(_tomlable(v) for v in value)
    return value is not None
