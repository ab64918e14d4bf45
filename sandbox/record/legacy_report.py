"""The report of a call an older build stored, which kept no inputs to feed again: rebuilt
from the core's records it kept, folded in time order.

A session this build stores keeps its inputs, and its report is rebuilt by feeding them
through a fresh core (:mod:`sandbox.record.stored_call`). An older build's kept the core's
records (or, older still, only its frames, from which :mod:`sandbox.record.unit_log` works
them out): its caller lines, TurnSteps, errors and conversation are the ones the core
recorded as it took them (:mod:`sandbox.call.ledger`,
:mod:`sandbox.record.conversation_log`). Each unit is the one the core recorded
(:mod:`sandbox.call.unit_fold`): its text relayed and kept, its fate and heard text as the
core sealed them, and for a unit still in play the words the playout released walked
through its text as the call walked them, so it reads back with exactly the words that were
committed. A crashed call's unit with no fate yet was cut by the crash (fate ``crashed``);
otherwise the call is still in progress, or its recording stopped, and it is ``in play``.
The outcome is ``unfinished`` either way.
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import UNSET

from sandbox.call.effects import DeadAir, DeadAirEnded, EndedBy
from sandbox.call.ledger import Ledger
from sandbox.call.outcome import Outcome
from sandbox.call.unit_fold import UnitFold
from sandbox.record.call_report import ReportHead, Unfinished, Unkept, started_words
from sandbox.record.conversation_log import ConversationLog
from sandbox.record.frame_report import FrameReport
from sandbox.record.report import (
    REPORT_VERSION,
    DeadAirReport,
    Report,
    error_report,
    step_report,
    unit_report,
)
from sandbox.record.store import StoredEvent


def older_build_report(
    head: ReportHead,
    records: Sequence[StoredEvent],
    frames: Sequence[FrameReport],
    unkept: Unkept,
    unfinished: Unfinished,
) -> Report:
    """The report (see the module doc) from the session's events with the core's records
    in them (``records``, see :func:`~sandbox.record.unit_log.with_unit_records`)."""
    fold, turns, conversation = UnitFold(), Ledger(), ConversationLog()
    for event in records:
        fold.apply(event.value)
        turns.apply(event.t_ms, event.value)
        conversation.apply(event.t_ms, event.value)
    if unfinished.crashed:
        fold.crash()
    return Report(
        report_version=REPORT_VERSION,
        session_id=head.session_id,
        brain_url=head.brain_url,
        brain_name=head.brain_name or head.brain_url,
        line=UNSET if head.line is None else head.line,
        started_at=started_words(head.started_at),
        outcome=Outcome.UNFINISHED,
        ended_by=EndedBy.UNFINISHED,
        end_detail=unfinished.why,
        settings="",
        watermark=fold.watermark,
        caller_turns=tuple(turns.caller_lines),
        turn_closes={},
        conversation=conversation.records,
        units=tuple(unit_report(unit, rebuilt=True) for unit in fold.units.values()),
        steps=tuple(step_report(step) for step in turns.steps),
        errors=tuple(error_report(error) for error in turns.errors),
        dead_air=_dead_air(records, unfinished.last_ms),
        alignment_skips=0,
        frames=tuple(frames),
        malformed_unkept=unkept.malformed or UNSET,
        frames_unkept=dict(unkept.frames) or UNSET,
        units_unkept=unkept.units or UNSET,
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
