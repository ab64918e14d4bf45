"""A stored session's events with the core's records in them, whatever build stored it: what
every reader of a stored call folds (:class:`~sandbox.call.unit_fold.UnitFold`,
:class:`~sandbox.call.ledger.Ledger`).

A session this build stores keeps the core's records as the call runs: of its units (its
``SessionOpened`` says so) and of its turns and the brain's wire (its greeting's
:class:`~sandbox.call.turn_records.TurnSent` is the first thing the core records, so a
session holding none was stored before the core kept them). They are read as stored. A
session an older build stored lacks one kind or both: here, and only here, the missing ones
are worked out from its frames by the core's rules
(:class:`~sandbox.call.records_from_frames.RecordsFromFrames`) and woven into its events at
the moments of the frames that caused them, so no reader needs to know which build stored it.

A :class:`~sandbox.record.report.Report` keeps the call's conversation as the core recorded
it (:mod:`sandbox.record.conversation_log`); one an older build wrote keeps only the frames:
:func:`report_conversation` works it out of them the same way, for every reader of a report
(the transcript, the re-drive's diff).
"""

from __future__ import annotations

import typing
from collections.abc import Sequence

from msgspec import UnsetType

from sandbox.call.effects import SpeakText
from sandbox.call.played import ClauseUnsaid, UnitUnspoken, WordPlayed
from sandbox.call.records_from_frames import RecordsFromFrames
from sandbox.call.turn_records import TurnRecord, TurnSent
from sandbox.call.unit_records import UnitRecord
from sandbox.record.conversation_log import ConversationLog
from sandbox.record.recorder import FrameRecord
from sandbox.record.reload_notice import notice_in
from sandbox.record.report import ConversationRecord, Report
from sandbox.record.store import StoredEvent
from sandbox.record.stored_events import SessionOpened, event_row

#: The unit records, with the text the core relayed (which an older build stored, but
#: which is worked out from the frames with the rest of them, by the same rule).
_UNIT_KINDS = (*typing.get_args(UnitRecord), SpeakText)
_TURN_KINDS = typing.get_args(TurnRecord)


def with_unit_records(
    frames: Sequence[FrameRecord], events: Sequence[StoredEvent]
) -> list[StoredEvent]:
    """The session's events in their order, holding the core's records (see the module
    doc). ``frames``: the session's frames as this build decodes them."""
    opened = next((e.value for e in events if isinstance(e.value, SessionOpened)), None)
    missing: tuple[type, ...] = ()
    if opened is None or not opened.unit_records:
        missing += _UNIT_KINDS
    if not any(isinstance(e.value, TurnSent) for e in events):
        missing += _TURN_KINDS
    if not missing:
        return list(events)
    return _records_from_frames(frames, events, missing)


def _records_from_frames(
    frames: Sequence[FrameRecord], events: Sequence[StoredEvent], missing: tuple[type, ...]
) -> list[StoredEvent]:
    """An old session's events with the ``missing`` kinds of records its frames yield, each
    at its frame's moment (frames before events at one instant: a word plays after its chunk
    came in); any it stored of those kinds are left out, as the frames say them."""
    unspoken = {
        e.value.speech_id for e in events if isinstance(e.value, UnitUnspoken | ClauseUnsaid)
    }
    reader = RecordsFromFrames([(f.dir, f.type, f.fields) for f in frames], unspoken)
    moments: list[tuple[int, bool, FrameRecord | StoredEvent]] = [
        (f.t_ms, False, f) for f in frames
    ]
    moments += [(e.t_ms, True, e) for e in events]
    out: list[StoredEvent] = []
    for t_ms, _, moment in sorted(moments, key=lambda m: (m[0], m[1])):
        if isinstance(moment, FrameRecord):
            for record in reader.frame(moment.dir, moment.type, moment.fields, moment.t_ms):
                if isinstance(record, missing):
                    out.append(StoredEvent(-1, t_ms, *event_row(record)))
        elif isinstance(moment.value, WordPlayed):
            reader.word(moment.value)
            out.append(moment)
        elif not isinstance(moment.value, missing):
            out.append(moment)
    return out


def report_conversation(report: Report) -> tuple[ConversationRecord, ...]:
    """The report's conversation: as the core recorded it, or, in a report an older build
    wrote (which lacks it), worked out from the frames it keeps by the core's rules (see the
    module doc), each reload notice read off its RTVI frame."""
    if not isinstance(report.conversation, UnsetType):
        return report.conversation
    frames = [(f, str(f.dir), str(f.type), f.fields) for f in report.frames]
    reader = RecordsFromFrames([(d, k, fields) for _, d, k, fields in frames], ())
    log = ConversationLog()
    for frame, d, k, fields in frames:
        for record in reader.frame(d, k, fields, frame.t_ms):
            log.apply(frame.t_ms, record)
        notice = notice_in(frame.as_json())
        if notice is not None:
            log.apply(frame.t_ms, notice)
    return log.records
