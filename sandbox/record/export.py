"""A stored session's report (a :class:`~sandbox.record.report.Report`, the same keys
``sandbox call --report`` writes).

A call that reached its end stored its report with its index, and that is the export. A
call cut short (the process was killed) has only its frames and events: the report is
rebuilt from them — each unit as the core recorded it as the call ran (its fate and heard
text as sealed; for the unit in play at the crash, the words played) — with outcome
``unfinished``. Frames are re-decoded from their raw bytes by this build, so a frame an
older build could not read is read now. A stored report this build cannot read as a
whole (written by an older build, or damaged) is completed from the rebuilt one.
"""

from __future__ import annotations

import time
from typing import Any

from msgspec import UNSET

from sandbox.call.effects import DeadAir, DeadAirEnded, EndedBy
from sandbox.call.outcome import Outcome
from sandbox.call.turn_fold import TurnFold
from sandbox.call.unit_fold import UnitFold
from sandbox.record.conversation_log import ConversationLog
from sandbox.record.recorder import FrameRecord
from sandbox.record.report import (
    REPORT_VERSION,
    DeadAirReport,
    Report,
    ReportError,
    error_report,
    report_from_json,
    report_json,
    step_report,
    unit_report,
)
from sandbox.record.store import SessionRow, SessionStore, StoredEvent, StoredFrame
from sandbox.record.stored_events import (
    DamagedEvent,
    FramesUnkept,
    MalformedUnkept,
    SessionOpened,
)
from sandbox.record.unit_log import with_unit_records
from sandbox.wire.codec import WireError, decode
from sandbox.wire.direction import direction
from sandbox.wire.plain import describe

#: The arm a stored frame this build cannot decode is shown under.
UNDECODABLE = "undecodable"


def frame_record(frame: StoredFrame) -> FrameRecord:
    """A stored frame decoded by this build (an undecodable one says why)."""
    try:
        arm, fields = describe(decode(frame.raw))
    except WireError as exc:
        return FrameRecord(
            frame.t_ms, frame.dir, UNDECODABLE, {"detail": str(exc), "bytes": len(frame.raw)}
        )
    return FrameRecord(frame.t_ms, frame.dir, arm, fields)


def session_records(store: SessionStore, session_id: str) -> list[tuple[int, object]]:
    """A stored session's events with the core's records in them, whatever build stored it
    (:func:`~sandbox.record.unit_log.with_unit_records`), each with its moment (ms)."""
    frames = [frame_record(f) for f in store.frames(session_id)]
    return [(e.t_ms, e.value) for e in with_unit_records(frames, store.events(session_id))]


def session_report(store: SessionStore, row: SessionRow) -> Report:
    """The session's report: the one it wrote at its end, or one rebuilt from what it
    recorded (see :func:`rebuilt_report`); a stored one this build cannot read whole has
    its gaps filled from the rebuilt one."""
    stored = store.report(row.id)
    if stored is not None:
        try:
            return report_from_json(stored)
        except ReportError:
            pass
    frames = [frame_record(f) for f in store.frames(row.id)]
    rebuilt = rebuilt_report(row, frames, store.events(row.id), crashed=store.crashed(row))
    if stored is None:
        return rebuilt
    try:
        return report_from_json({**report_json(rebuilt), **stored})
    except ReportError:
        return rebuilt  # what it holds is no report at all: what was recorded stands


def session_report_json(store: SessionStore, row: SessionRow) -> dict[str, Any]:
    """The session's report as a JSON object to write out: the one the call stored, as it
    stored it, or the rebuilt one's (see :func:`session_report`)."""
    stored = store.report(row.id)
    return stored if stored is not None else report_json(session_report(store, row))


def rebuilt_report(
    row: SessionRow, frames: list[FrameRecord], events: list[StoredEvent], *, crashed: bool
) -> Report:
    """The report of a call that has not ended, from its frames and events in time order.

    Its caller lines, TurnSteps, errors and conversation are the ones the core recorded as
    it took them (:mod:`sandbox.call.turn_fold`, :mod:`sandbox.record.conversation_log`).
    Each unit is the one the core recorded (:mod:`sandbox.call.unit_fold`, over the events
    :func:`~sandbox.record.unit_log.with_unit_records` gives): its text relayed and kept, its
    fate and heard text as the core sealed them, and for a unit still in play the words the
    playout released walked through its text as the call walked them, so it reads back with
    exactly the words that were committed. ``crashed``: the call's process died (see
    ``SessionStore.crashed``), so a unit with no fate yet was cut by the crash (fate
    ``crashed``); otherwise the call is still in progress, or its recording stopped, and it
    is ``in play``. The outcome is ``unfinished`` either way.
    """
    fold, turns, conversation = UnitFold(), TurnFold(), ConversationLog()
    for event in with_unit_records(frames, events):
        fold.apply(event.value)
        turns.apply(event.t_ms, event.value)
        conversation.apply(event.t_ms, event.value)
    if crashed:
        fold.crash()
    opened = next((e.value for e in events if isinstance(e.value, SessionOpened)), None)
    named = None if opened is None else opened.brain_name
    line = None if opened is None else opened.line
    return Report(
        report_version=REPORT_VERSION,
        session_id=row.id,
        brain_url=row.brain_url,
        brain_name=str(named or row.brain_url),
        line=line if isinstance(line, str) else UNSET,
        started_at=_started(row.started_at),
        outcome=Outcome.UNFINISHED,
        ended_by=EndedBy.UNFINISHED,
        end_detail=_unended(row, crashed) + _damage(events),
        settings="",
        watermark=fold.watermark,
        caller_turns=turns.caller_lines,
        turn_closes={},
        conversation=conversation.records,
        units=tuple(unit_report(unit, rebuilt=True) for unit in fold.units.values()),
        steps=tuple(step_report(step) for step in turns.steps),
        errors=tuple(error_report(error) for error in turns.errors),
        dead_air=_dead_air(events, max([f.t_ms for f in frames] + [e.t_ms for e in events] + [0])),
        alignment_skips=0,
        # A damaged store's frame whose direction is no word of the wire's is not reported.
        frames=tuple(frame.as_report() for frame in frames if direction(frame.dir) is not None),
        **_unkept(events),
    )


def _unkept(events: list[StoredEvent]) -> dict[str, Any]:
    """What the call only counted, as last written to the store (the recorder writes the
    counts as they grow, so a call that died keeps them up to about its last second)."""
    out: dict[str, Any] = {}
    for event in events:
        if isinstance(event.value, MalformedUnkept):
            out["malformed_unkept"] = event.value.count
        elif isinstance(event.value, FramesUnkept):
            out["frames_unkept"] = dict(event.value.counts)
    return out


def _damage(events: list[StoredEvent]) -> str:
    """The recorded events that could not be read, said after why the report was rebuilt:
    the first, and how many more."""
    damaged = [e.value for e in events if isinstance(e.value, DamagedEvent)]
    if not damaged:
        return ""
    more = f" (and {len(damaged) - 1:,} more)" if len(damaged) > 1 else ""
    return f"; {damaged[0].words}{more}"


def _dead_air(events: list[StoredEvent], last_ms: int) -> tuple[DeadAirReport, ...]:
    """The dead air the call showed, from its events: each stretch that ended, and one still
    going when the recording stopped, lasting at least to the last moment recorded (nothing
    is stored while the line is quiet, so a crash in dead air is known no later)."""
    ended: list[DeadAirReport] = []
    going: dict[int, DeadAirReport] = {}  # by speech id: shown, not yet ended
    for event in events:
        gap = event.value
        if not isinstance(gap, DeadAir | DeadAirEnded):
            continue
        since = event.t_ms - gap.silent_ms
        if isinstance(gap, DeadAir):
            lasting = max(last_ms - since, gap.silent_ms)
            going[gap.speech_id] = DeadAirReport(since, gap.turn_id, gap.speech_id, lasting)
        else:
            going.pop(gap.speech_id, None)
            ended.append(DeadAirReport(since, gap.turn_id, gap.speech_id, gap.silent_ms))
    return tuple(sorted([*ended, *going.values()], key=lambda gap: gap.t_ms))


def _unended(row: SessionRow, crashed: bool) -> str:
    """Why a rebuilt report has no end, in words."""
    if crashed:
        why = "the call's process stopped before the call ended (killed or crashed)"
    elif row.recording_stopped:
        why = "the recording stopped before the call ended"
    else:
        return "the call is still in progress; this report is what was recorded so far"
    return f"{why}; this report is rebuilt from what was recorded up to then"


def _started(at: float) -> str:
    """A stored start time as the report spells it; empty when the row's is no time at all
    (a damaged row must not keep its frames from being read)."""
    try:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))
    except (OverflowError, OSError, ValueError, TypeError):
        return ""
