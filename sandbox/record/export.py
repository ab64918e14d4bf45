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

from collections.abc import Sequence
from typing import Any

from msgspec import UNSET

from sandbox.call.effects import DeadAir, DeadAirEnded, EndedBy
from sandbox.call.outcome import Outcome
from sandbox.call.turn_fold import TurnFold
from sandbox.call.unit_fold import UnitFold
from sandbox.record.call_report import call_report, started_words
from sandbox.record.conversation_log import ConversationLog
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
from sandbox.record.store import SessionRow, SessionStore, StoredEvent
from sandbox.record.stored_call import StoredCall
from sandbox.record.unit_log import with_unit_records
from sandbox.wire.direction import direction


def session_records(store: SessionStore, session_id: str) -> list[tuple[int, object]]:
    """A stored session's events with the core's records in them, whatever build stored it
    (:func:`~sandbox.record.unit_log.with_unit_records`), each with its moment (ms)."""
    call = StoredCall.load(store, store.find(session_id))
    return [(e.t_ms, e.value) for e in with_unit_records(call.frames, call.events)]


def session_report(store: SessionStore, row: SessionRow) -> Report:
    """The session's report (see :func:`report_of`), read from ``store``."""
    return report_of(StoredCall.load(store, row))


def report_of(call: StoredCall) -> Report:
    """The stored call's report: the one it wrote at its end, or one rebuilt from what it
    recorded (see :func:`rebuilt_of`); a stored one this build cannot read whole has its
    gaps filled from the rebuilt one."""
    stored = call.stored_report
    if stored is not None:
        try:
            return report_from_json(stored)
        except ReportError:
            pass
    rebuilt = rebuilt_of(call)
    if stored is None:
        return rebuilt
    try:
        return report_from_json({**report_json(rebuilt), **stored})
    except ReportError:
        return rebuilt  # what it holds is no report at all: what was recorded stands


def rebuilt_of(call: StoredCall) -> Report:
    """The report of a stored call that wrote none: its inputs fed through a fresh core and
    reported by the live call's builder (:func:`~sandbox.record.call_report.call_report`);
    for a session an older build stored, which kept no inputs, rebuilt from the core's
    records it kept (:func:`rebuilt_report`)."""
    fed = call.fed_again
    if isinstance(fed, str):
        return rebuilt_report(call)
    unfinished = None if fed.core.ended is not None else call.unfinished()
    # A damaged store's frame whose direction is no word of the wire's is not reported.
    frames = [f.as_report() for f in call.frames if direction(f.dir) is not None]
    records = fed.conversation.records
    return call_report(
        call.head,
        fed.core,
        records,
        frames,
        call.unkept,
        script_notes=call.script_notes,
        unfinished=unfinished,
    )


def session_report_json(store: SessionStore, row: SessionRow) -> dict[str, Any]:
    """The session's report as a JSON object to write out: the one the call stored, as it
    stored it, or the rebuilt one's (see :func:`session_report`)."""
    return report_json_of(StoredCall.load(store, row))


def report_json_of(call: StoredCall) -> dict[str, Any]:
    """The stored call's report as a JSON object to write out: the one it stored, as it
    stored it, or the rebuilt one's (see :func:`report_of`)."""
    stored = call.stored_report
    return dict(stored) if stored is not None else report_json(report_of(call))


def rebuilt_report(call: StoredCall) -> Report:
    """The report of a call an older build stored, which kept no inputs, from its frames
    and events in time order.

    Its caller lines, TurnSteps, errors and conversation are the ones the core recorded as
    it took them (:mod:`sandbox.call.turn_fold`, :mod:`sandbox.record.conversation_log`).
    Each unit is the one the core recorded (:mod:`sandbox.call.unit_fold`, over the events
    :func:`~sandbox.record.unit_log.with_unit_records` gives): its text relayed and kept, its
    fate and heard text as the core sealed them, and for a unit still in play the words the
    playout released walked through its text as the call walked them, so it reads back with
    exactly the words that were committed. A crashed call's unit with no fate yet was cut by
    the crash (fate ``crashed``); otherwise the call is still in progress, or its recording
    stopped, and it is ``in play``. The outcome is ``unfinished`` either way.
    """
    fold, turns, conversation = UnitFold(), TurnFold(), ConversationLog()
    for event in with_unit_records(call.frames, call.events):
        fold.apply(event.value)
        turns.apply(event.t_ms, event.value)
        conversation.apply(event.t_ms, event.value)
    if call.crashed:
        fold.crash()
    head, unkept = call.head, call.unkept
    return Report(
        report_version=REPORT_VERSION,
        session_id=head.session_id,
        brain_url=head.brain_url,
        brain_name=head.brain_name or head.brain_url,
        line=UNSET if head.line is None else head.line,
        started_at=started_words(head.started_at),
        outcome=Outcome.UNFINISHED,
        ended_by=EndedBy.UNFINISHED,
        end_detail=call.unfinished().why,
        settings="",
        watermark=fold.watermark,
        caller_turns=turns.caller_lines,
        turn_closes={},
        conversation=conversation.records,
        units=tuple(unit_report(unit, rebuilt=True) for unit in fold.units.values()),
        steps=tuple(step_report(step) for step in turns.steps),
        errors=tuple(error_report(error) for error in turns.errors),
        dead_air=_dead_air(call.events, call.last_ms),
        alignment_skips=0,
        # A damaged store's frame whose direction is no word of the wire's is not reported.
        frames=tuple(
            frame.as_report() for frame in call.frames if direction(frame.dir) is not None
        ),
        malformed_unkept=unkept.malformed or UNSET,
        frames_unkept=dict(unkept.frames) or UNSET,
    )


def _dead_air(events: Sequence[StoredEvent], last_ms: int) -> tuple[DeadAirReport, ...]:
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
