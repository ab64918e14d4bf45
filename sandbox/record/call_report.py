"""The one builder of a call's report: from a core that took the call's inputs, live or
fed them again from the store (:mod:`sandbox.record.stored_call`), the conversation
folded from its effects, and the frames that crossed.

A call that ended reports its end as the core recorded it. A stored call that did not end
(its process died, its recording stopped, or it is still going) reports outcome
``unfinished``, says why in its end detail, keeps the dead air still going when its record
stops, and has no call record (nothing was judged of a call cut short); ``crashed``: its
process died, so each unit still in play was cut by the crash (fate ``crashed``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from msgspec import UNSET

from sandbox.call.core import CallCore
from sandbox.call.effects import EndedBy
from sandbox.call.outcome import Outcome
from sandbox.call.units import Unit
from sandbox.line.profile import LineProfile
from sandbox.record.call_record import build, heard_from
from sandbox.record.frame_report import FrameReport
from sandbox.record.report import (
    REPORT_VERSION,
    BackchannelReport,
    ConversationRecord,
    DeadAirReport,
    Report,
    SettingsReport,
    StallReport,
    Timeline,
    TurnReport,
    error_report,
    step_report,
    unit_report,
)
from sandbox.record.unkept_kinds import UnkeptKind


@dataclass(frozen=True)
class ReportHead:
    """What a report says of its session beside the call: its id, its brain (``name``: how
    it is shown; None: its URL), the phone line in words (None: none), when it began, and
    the line as values (None: none, or an older build's session kept only its words)."""

    session_id: str
    brain_url: str
    brain_name: str | None
    line: str | None
    started_at: float
    line_profile: LineProfile | None = None


@dataclass(frozen=True)
class Unkept:
    """What the record only counted: messages that were no envelope, frames past their
    sample by kind (see :mod:`sandbox.record.recorder`), and units past theirs (see
    :mod:`sandbox.call.unit_sample`)."""

    malformed: int = 0
    frames: tuple[tuple[UnkeptKind, int], ...] = ()
    units: int = 0


@dataclass(frozen=True)
class CallEnd:
    """How a call ended, in its report's words."""

    outcome: Outcome
    ended_by: EndedBy
    end_detail: str

    @classmethod
    def of(cls, core: CallCore) -> CallEnd:
        """Read off the core: a call kept nowhere (a load run's) needs this of its report,
        and building the whole report would judge its call record for nobody."""
        ended = core.ended
        if ended is None:
            return cls(core.outcome(), EndedBy.UNFINISHED, "")
        return cls(ended.outcome, ended.ended_by, ended.detail)


@dataclass(frozen=True)
class Unfinished:
    """A stored call that did not end: why, in words, at ``last_ms`` (its record's last
    moment), and whether its process died (``crashed``)."""

    why: str
    last_ms: int
    crashed: bool


def call_report(
    head: ReportHead,
    core: CallCore,
    conversation: Sequence[ConversationRecord],
    frames: Sequence[FrameReport],
    unkept: Unkept,
    *,
    script_notes: Sequence[str] | None = None,
    unfinished: Unfinished | None = None,
) -> Report:
    """The call's report (see the module doc)."""
    ledger = core.ledger
    dead_air = [DeadAirReport(g.t_ms, g.turn_id, g.speech_id, g.silent_ms) for g in ledger.dead_air]
    units: Sequence[Unit] = core.units
    if unfinished is None:
        end = CallEnd.of(core)
    else:
        end = CallEnd(Outcome.UNFINISHED, EndedBy.UNFINISHED, unfinished.why)
        going = core.dead_air_at(unfinished.last_ms)
        if going is not None:
            since = unfinished.last_ms - going.silent_ms
            dead_air.append(DeadAirReport(since, going.turn_id, going.speech_id, going.silent_ms))
        if unfinished.crashed:
            units = [u.as_the_crash_left_it() for u in units]
    return Report(
        report_version=REPORT_VERSION,
        session_id=head.session_id,
        brain_url=head.brain_url,
        brain_name=head.brain_name or head.brain_url,
        line=UNSET if head.line is None else head.line,
        line_profile=UNSET if head.line_profile is None else head.line_profile,
        started_at=started_words(head.started_at),
        outcome=end.outcome,
        ended_by=end.ended_by,
        end_detail=end.end_detail,
        settings=core.settings.describe(),
        config=SettingsReport.of(core.settings),
        watermark=core.watermark,
        caller_turns=tuple(ledger.caller_lines),
        turn_closes={str(turn): how for turn, how in ledger.caller_closes.items()},
        turn_mends={str(turn): how for turn, how in ledger.caller_mends.items()},
        turns=tuple(TurnReport(t, Timeline.of(marks)) for t, marks in ledger.timelines.items()),
        conversation=tuple(conversation),
        units=tuple(unit_report(u) for u in units),
        units_unkept=core.units_unkept,
        steps=tuple(step_report(s) for s in ledger.steps),
        errors=tuple(error_report(e) for e in ledger.errors),
        backchannels=tuple(
            BackchannelReport(b.t_ms, b.text, b.resumed) for b in ledger.backchannels
        ),
        stalls=tuple(StallReport(s.t_ms, s.turn_id, s.waited_ms) for s in ledger.stalls),
        dead_air=tuple(dead_air),
        alignment_skips=ledger.alignment_skips,
        errors_uncounted=ledger.errors_uncounted,
        malformed_unkept=unkept.malformed,
        frames_unkept=dict(unkept.frames),
        record=build(heard_from(core)) if unfinished is None else UNSET,
        frames=tuple(frames),
        **({} if script_notes is None else {"script_notes": tuple(script_notes)}),
    )


def started_words(at: float) -> str:
    """A start time as the report spells it; empty when it is no time at all (a damaged
    row must not keep its frames from being read)."""
    try:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))
    except (OverflowError, OSError, ValueError, TypeError):
        return ""
