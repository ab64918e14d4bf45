"""What the session page shows, gathered from the store as one JSON-able object.

Times are call milliseconds throughout, the clock the audio legs share. Each bot unit
carries its words with the time each one started to play (``word_played`` events), so the
page lights the heard words in step with the audio, and how many were heard (its Finalize's
prefix), and the audit's doubt when ``sandbox audit`` found the speaker leg saying
otherwise. Each audio leg carries a waveform: the peak of every 20 ms.

Every string in it is :func:`visible`: a bidi override in a caller's line or a brain's error
shows as ``\u202e`` on the page instead of turning the text around.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from sandbox.call.effects import CallerShown, CutPlayout, CutReason, DeadAirEnded
from sandbox.call.ledger import Ledger
from sandbox.call.ledger_records import WireErrorRecord
from sandbox.call.played import WordPlayed
from sandbox.call.turn_records import BracketClosed
from sandbox.call.unit_records import WatermarkRaised
from sandbox.call.waterfall import STAGES, VOICE_END, from_start
from sandbox.judges.heard_truth import doubted
from sandbox.record.leg_files import leg_path
from sandbox.record.legs import MIC, SPEAKER, read_leg
from sandbox.record.plain_text import visible
from sandbox.record.record_text import record_lines
from sandbox.record.recorder import FrameRecord
from sandbox.record.reload_notice import RELOAD_MARK
from sandbox.record.report import Report
from sandbox.record.session_kinds import CallMode
from sandbox.record.session_words import outcome_sentence, shown_brain
from sandbox.record.store import SessionRow, StoredEvent
from sandbox.record.stored_call import UNDECODABLE, StoredCall
from sandbox.record.stored_events import Audited, CaptionShown, DamagedEvent, ScenePlayed
from sandbox.record.transcript import (
    BotUnit,
    BrainReloaded,
    CallerLine,
    DeadAirGap,
    FloorTaken,
    IdleNudge,
    dead_air_words,
    transcript,
)

#: One waveform point per this many milliseconds.
PEAK_MS = 20
#: A frame's fields are shown up to this many characters in the table.
FIELDS_CHARS = 400


def page_data(call: StoredCall) -> dict[str, Any]:
    """Everything the page draws, except the audio itself."""
    row, report, frames, events, recorded = (
        call.row, call.report, call.frames, call.events, call.records
    )  # fmt: skip
    turns = Ledger()
    for event in recorded:
        turns.apply(event.t_ms, event.value)
    opened_at = turns.opened_at
    word_times: dict[int, list[int]] = {}
    for event in events:
        if isinstance(word := event.value, WordPlayed):
            word_times.setdefault(word.speech_id, []).append(event.t_ms)
    doubts = _doubts(events)
    entries: list[dict[str, Any]] = []
    for entry in transcript(report):
        match entry:
            case CallerLine(turn_id=turn, text=text):
                at = turns.sent_at(turn) or 0
                entries.append({"kind": "caller", "turn": turn, "text": text, "t_ms": at})
            case IdleNudge(turn_id=turn, level=level):
                at = turns.sent_at(turn) or 0
                entries.append({"kind": "idle", "turn": turn, "level": level, "t_ms": at})
            case DeadAirGap(turn_id=turn, speech_id=sid, silent_ms=silent, t_ms=at):
                words = dead_air_words(turn, sid, silent, lasting=False)
                entries.append({"kind": "dead-air", "text": f"⏸ {words}", "t_ms": at})
            case BrainReloaded(notice=notice, t_ms=at):
                text = f"{RELOAD_MARK} {notice.words}"
                entries.append({"kind": "reload", "text": text, "t_ms": at})
            case FloorTaken():
                pass  # a marker on the timeline, below
            case BotUnit():
                entries.append(
                    {**_unit(entry, opened_at, word_times), "doubt": doubts.get(entry.speech_id)}
                )
    duration = row.duration_ms or max((f.t_ms for f in frames), default=0)
    data = {
        "session": {
            "id": row.id,
            "brain": shown_brain(row, report),
            "line": report.line or "",
            # The settings in force as the call ended: its voice, each leg's language.
            "settings": report.settings,
            "mode": row.mode,
            "leg": row.leg,
            "started": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(row.started_at)),
            "duration_ms": duration,
            "outcome": row.status,
            "ended_by": row.ended_by or "",
            "ending": outcome_sentence(row.status, row.ended_by),
            "end_detail": row.end_detail or report.end_detail,
            "counts": {
                "caller turns": row.caller_turns,
                "units": row.units,
                "cuts": row.cuts,
                "errors": row.errors,
            },
        },
        "entries": entries,
        "scene": _scene(events),
        # The call record in words (none for a call cut short or from an older build), and
        # each recorded event that could not be read.
        "record": [
            *(record_lines(report.record) if report.record else []),
            *(e.value.words for e in events if isinstance(e.value, DamagedEvent)),
        ],
        "markers": _markers(frames, recorded),
        "waterfalls": _waterfalls(report),
        "frames": [
            {"t_ms": f.t_ms, "dir": f.dir, "type": f.type, "fields": _fields(f.fields)}
            for f in frames
        ],
        "waves": _waves(row) if row.mode is CallMode.AUDIO else {},
    }
    page: dict[str, Any] = shown(data)
    return page


def shown(value: Any) -> Any:
    """``value`` with every string in it (keys too) :func:`visible`."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        return {shown(k): shown(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shown(v) for v in value]
    return value


def _unit(
    unit: BotUnit, opened_at: Mapping[int, int], word_times: dict[int, list[int]]
) -> dict[str, Any]:
    words = unit.generated.split()
    times = word_times.get(unit.speech_id, [])
    heard = min(len(unit.heard.split()), len(words))
    return {
        "kind": "bot",
        "speech_id": unit.speech_id,
        "turn": unit.turn_id,
        "t_ms": opened_at.get(unit.speech_id, 0),
        "words": words,
        "word_ms": [times[i] if i < min(heard, len(times)) else None for i in range(len(words))],
        "heard": heard,
        "fate": unit.fate_words,
        "cut": unit.cut_mark,
    }


def _waterfalls(report: Report) -> list[dict[str, Any]]:
    """Each caller turn's latency waterfall: its text, when its first stage happened on the
    call's clock (a click seeks there), whether it counts from the caller's voice end, and
    each stage it reached with its ms after that first stage; and the dead air inside its
    units (a brain awaiting a tool mid-unit), which comes after the first audio."""
    said = {e.turn_id: e.text for e in transcript(report) if isinstance(e, CallerLine)}
    gaps = report.dead_air or ()
    out = []
    for turn in report.turns or ():
        ordered = turn.timeline.marks
        if not ordered:
            continue
        out.append(
            {
                "turn": turn.turn_id,
                "text": said.get(turn.turn_id, ""),
                "t_ms": next(iter(ordered.values())),
                "voiced": VOICE_END in ordered,
                "stages": [
                    {"stage": stage, "label": STAGES[stage], "ms": ms}
                    for stage, ms in from_start(ordered).items()
                ],
                "dead_air": [
                    {"speech_id": g.speech_id, "ms": g.silent_ms}
                    for g in gaps
                    if g.turn_id == turn.turn_id
                ],
            }
        )
    return out


def _doubts(events: Sequence[StoredEvent]) -> dict[int, dict[str, Any]]:
    """The units ``sandbox audit`` doubted (more words off than it tolerates), by speech
    id: its verdict and what the speaker leg said instead; none when it was not audited."""
    audit = next((e.value for e in reversed(events) if isinstance(e.value, Audited)), None)
    units = audit.units if audit is not None else ()
    return {
        unit.speech_id: {"verdict": unit.verdict, "transcribed": unit.transcribed}
        for unit in units
        if doubted(unit.words_off)
    }


def _scene(events: Sequence[StoredEvent]) -> dict[str, Any] | None:
    """A demo scene's title and its captions with the moment each was shown; None when
    the session was no scene."""
    scene = next((e.value for e in events if isinstance(e.value, ScenePlayed)), None)
    if scene is None:
        return None
    captions = [
        {"t_ms": e.t_ms, "text": e.value.text} for e in events if isinstance(e.value, CaptionShown)
    ]
    return {"title": scene.title, "captions": captions}


def _markers(frames: Sequence[FrameRecord], events: Sequence[StoredEvent]) -> list[dict[str, Any]]:
    """The barge-ins, new turns, take-backs and errors from the core's records (``events``
    holds them: see :mod:`sandbox.record.unit_log`), each frame this build cannot decode
    (only the frame itself says it), the backchannels and the dead air."""
    # A raised watermark is a barge-in when the caller cut the bot's speech with it (the
    # core cuts the playout and raises it at one moment); else a new turn that cut nothing.
    cuts = {e.t_ms for e in events if e.value == CutPlayout(CutReason.BARGE_IN)}
    marks = [
        {"t_ms": f.t_ms, "kind": "error", "label": f"! {f.type}"}
        for f in frames
        if f.type == UNDECODABLE
    ]
    for event in events:
        match event.value:
            case WatermarkRaised() if event.t_ms in cuts:
                marks.append({"t_ms": event.t_ms, "kind": "barge-in", "label": "✂ barge-in"})
            case WatermarkRaised():
                marks.append({"t_ms": event.t_ms, "kind": "new-turn", "label": "↪ new turn"})
            case BracketClosed(cancelled=True):
                marks.append({"t_ms": event.t_ms, "kind": "cancel", "label": "✗ take-back"})
            case WireErrorRecord():
                marks.append({"t_ms": event.t_ms, "kind": "error", "label": "! error"})
            case CallerShown(kind="backchannel", text=text):
                marks.append({"t_ms": event.t_ms, "kind": "backchannel", "label": f"~ {text}"})
            case DeadAirEnded(silent_ms=silent):
                label = f"⏸ dead air {silent / 1000:.1f} s"
                marks.append({"t_ms": event.t_ms - silent, "kind": "dead-air", "label": label})
    return sorted(marks, key=lambda m: m["t_ms"])


def _fields(fields: dict[str, Any]) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in fields.items())
    return text if len(text) <= FIELDS_CHARS else text[: FIELDS_CHARS - 1] + "…"


def _waves(row: SessionRow) -> dict[str, list[float]]:
    out = {}
    for leg in (MIC, SPEAKER):
        samples, rate = read_leg(leg_path(row.id, leg))
        out[leg] = peaks(samples, rate)
    return out


def peaks(samples: npt.NDArray[np.int16], rate: int) -> list[float]:
    """The absolute peak of every :data:`PEAK_MS`, 0..1, rounded to keep the page small."""
    step = rate * PEAK_MS // 1000
    whole = len(samples) // step * step
    if whole == 0:
        return []
    blocks = np.abs(samples[:whole].astype(np.int32)).reshape(-1, step).max(axis=1) / 32768
    return [round(float(v), 3) for v in blocks]
