"""A stored session's events with the core's records of its units in them, whatever build
stored it: what every reader of a stored call folds (:class:`~sandbox.call.unit_fold.UnitFold`).

A session this build stores keeps the core's records as the call runs (its ``SessionOpened``
says so), and they are read as stored. A session an older build stored has none: here, and
only here, they are worked out from its frames by the core's rules
(:class:`~sandbox.call.records_from_frames.RecordsFromFrames`) and woven into its events at
the moments of the frames that caused them, so no reader needs to know which build stored it.
"""

from __future__ import annotations

from collections.abc import Sequence

from sandbox.call.effects import SpeakText
from sandbox.call.played import ClauseUnsaid, UnitUnspoken, WordPlayed
from sandbox.call.records_from_frames import RecordsFromFrames
from sandbox.record.recorder import FrameRecord
from sandbox.record.store import StoredEvent
from sandbox.record.stored_events import SessionOpened, event_row


def with_unit_records(
    frames: Sequence[FrameRecord], events: Sequence[StoredEvent]
) -> list[StoredEvent]:
    """The session's events in their order, holding the core's unit records (see the
    module doc). ``frames``: the session's frames as this build decodes them."""
    opened = next((e.value for e in events if isinstance(e.value, SessionOpened)), None)
    if opened is not None and opened.unit_records:
        return list(events)
    return _records_from_frames(frames, events)


def _records_from_frames(
    frames: Sequence[FrameRecord], events: Sequence[StoredEvent]
) -> list[StoredEvent]:
    """An old session's events with the records its frames yield, each at its frame's moment
    (frames before events at one instant: a word plays after its chunk came in). Its stored
    relayed text is left out: the frames say it, by the same rule as the rest."""
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
            for record in reader.frame(moment.dir, moment.type, moment.fields):
                out.append(StoredEvent(-1, t_ms, *event_row(record)))
        elif isinstance(moment.value, WordPlayed):
            reader.word(moment.value)
            out.append(moment)
        elif not isinstance(moment.value, SpeakText):
            out.append(moment)
    return out
