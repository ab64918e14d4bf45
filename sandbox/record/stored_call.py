"""A stored call, read once: its index row, frames and events decoded as this build reads
them, and, for a session that stored its inputs (:mod:`sandbox.record.input_log`), the call
made again by feeding them through a fresh core: its report comes from the same builder as
a live call's (:func:`~sandbox.record.call_report.call_report`), so the two agree field
for field.

A session an older build stored has no inputs; its report is rebuilt from the core's
records it kept (:mod:`sandbox.record.legacy_report`). A call that reached its end stored
its report with its index, and that is its report; one this build cannot read as a whole
(written by an older build, or damaged) is completed from the rebuilt one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from sandbox.call.core import CallCore
from sandbox.call.effects import Effect
from sandbox.call.inputs import CoreInput
from sandbox.record.call_report import ReportHead, Unfinished, Unkept, call_report
from sandbox.record.conversation_log import ConversationLog
from sandbox.record.input_log import CoreBegun, InputsUnkept, fed_again
from sandbox.record.legacy_report import older_build_report
from sandbox.record.recorder import FrameRecord
from sandbox.record.report import Report, ReportError, report_from_json, report_json
from sandbox.record.store import SessionRow, SessionStore, StoredEvent, StoredFrame
from sandbox.record.stored_events import (
    DamagedEvent,
    FrameCut,
    FramesUnkept,
    MalformedUnkept,
    ScriptNoted,
    SessionOpened,
)
from sandbox.record.unit_log import with_unit_records
from sandbox.record.unkept_kinds import UnkeptKind
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
        return FrameRecord.of(
            frame.t_ms, frame.dir, UNDECODABLE, {"detail": str(exc), "bytes": len(frame.raw)}
        )
    return FrameRecord.of(frame.t_ms, frame.dir, arm, fields)


@dataclass(frozen=True)
class FedAgain:
    """A stored call's inputs fed through a fresh core: the core as they left it, the
    conversation folded from its effects, and each effect with when the core made it."""

    core: CallCore
    conversation: ConversationLog
    effects: tuple[tuple[int, Effect], ...]


@dataclass
class StoredCall:
    """One stored session as every reader and writer of it reads it (see the module doc).
    ``crashed``: its process died mid-call (``SessionStore.crashed``)."""

    row: SessionRow
    stored_frames: Sequence[StoredFrame]
    events: Sequence[StoredEvent]
    crashed: bool
    #: The report the call stored at its end, as stored; None: it stored none.
    stored_report: dict[str, Any] | None

    @classmethod
    def load(cls, store: SessionStore, row: SessionRow) -> StoredCall:
        """Read the session from ``store``, once."""
        return cls(
            row,
            store.frames(row.id),
            store.events(row.id),
            store.crashed(row),
            store.report(row.id),
        )

    @cached_property
    def frames(self) -> list[FrameRecord]:
        """Its frames as this build decodes them (an undecodable one says why); a row of a
        damaged store whose side is neither way is left out, as the report leaves it."""
        return [frame_record(f) for f in self.stored_frames if direction(f.dir) is not None]

    @cached_property
    def records(self) -> list[StoredEvent]:
        """Its events in their order with the core's records in them, whatever build
        stored it (:func:`~sandbox.record.unit_log.with_unit_records`)."""
        return with_unit_records(self.frames, self.events)

    @property
    def timed_records(self) -> list[tuple[int, object]]:
        """:attr:`records`' values, each with its moment (ms)."""
        return [(e.t_ms, e.value) for e in self.records]

    @cached_property
    def report(self) -> Report:
        """Its report: the one it wrote at its end, or :attr:`rebuilt`; a stored one this
        build cannot read whole has its gaps filled from the rebuilt one."""
        stored = self.stored_report
        if stored is not None:
            try:
                return report_from_json(stored)
            except ReportError:
                pass
        if stored is None:
            return self.rebuilt
        try:
            return report_from_json({**report_json(self.rebuilt), **stored})
        except ReportError:
            return self.rebuilt  # what it holds is no report at all: what was recorded stands

    @cached_property
    def report_json(self) -> dict[str, Any]:
        """Its report as a JSON object to write out: the one it stored, as it stored it, or
        the rebuilt one's."""
        stored = self.stored_report
        return dict(stored) if stored is not None else report_json(self.report)

    @cached_property
    def rebuilt(self) -> Report:
        """Its report from what it recorded: its inputs fed through a fresh core and reported
        by the live call's builder (:func:`~sandbox.record.call_report.call_report`); for a
        session an older build stored, which kept no inputs, from the core's records it kept
        (:func:`~sandbox.record.legacy_report.older_build_report`)."""
        # A damaged store's frame whose direction is no word of the wire's is not reported.
        frames = [f.as_report() for f in self.frames]
        fed = self.fed_again
        if isinstance(fed, str):
            return older_build_report(
                self.head, self.records, frames, self.unkept, self.unfinished()
            )
        return call_report(
            self.head,
            fed.core,
            fed.conversation.records,
            frames,
            self.unkept,
            script_notes=self.script_notes,
            unfinished=None if fed.core.ended is not None else self.unfinished(),
        )

    @cached_property
    def opened(self) -> SessionOpened | None:
        """Its first event: the brain's name, the starting settings, the line."""
        return next((e.value for e in self.events if isinstance(e.value, SessionOpened)), None)

    @property
    def head(self) -> ReportHead:
        """What its report says of the session beside the call."""
        opened = self.opened
        return ReportHead(
            self.row.id,
            self.row.brain_url,
            None if opened is None else opened.brain_name,
            None if opened is None else opened.line,
            self.row.started_at,
            None if opened is None else opened.line_profile,
        )

    @cached_property
    def inputs(self) -> list[tuple[int, CoreInput]] | str:
        """Every input its core was fed, with when, in order; or why they cannot be fed
        again (an older build's session stored none; a frame an input names is missing)."""
        opened = self.opened
        if opened is None or not opened.inputs or self.begun is None:
            return "the session was stored by an older build, which kept no inputs"
        unkept = next((e.value for e in self.events if isinstance(e.value, InputsUnkept)), None)
        if unkept is not None:
            return f"not every input was stored ({unkept.what}: a flood past its sample)"
        cut = {e.value.seq for e in self.events if isinstance(e.value, FrameCut)}
        raws = [None if f.seq in cut else f.raw for f in self.stored_frames]
        if any(f.seq != place for place, f in enumerate(self.stored_frames)):
            return "the session's frames are not all there"
        return fed_again(((e.t_ms, e.value) for e in self.events), raws)

    @cached_property
    def begun(self) -> CoreBegun | None:
        """The core as the call set it up, if stored."""
        return next((e.value for e in self.events if isinstance(e.value, CoreBegun)), None)

    @cached_property
    def fed_again(self) -> FedAgain | str:
        """Its inputs fed through a fresh core (see :class:`FedAgain`), or why they cannot
        be (see :attr:`inputs`)."""
        inputs = self.inputs
        if isinstance(inputs, str):
            return inputs
        assert self.begun is not None  # no inputs without it
        core = self.begun.core(self.row.id)
        conversation = ConversationLog()
        effects: list[tuple[int, Effect]] = []
        for t_ms, fed in inputs:
            for effect in core.handle(fed, t_ms):
                conversation.apply(t_ms, effect)
                effects.append((t_ms, effect))
        return FedAgain(core, conversation, tuple(effects))

    @property
    def last_ms(self) -> int:
        """The last moment it recorded (ms)."""
        times = [f.t_ms for f in self.stored_frames] + [e.t_ms for e in self.events]
        return max([0, *times])

    @property
    def unkept(self) -> Unkept:
        """What the call only counted, as last written to the store (the recorder writes the
        counts as they grow, so a call that died keeps them up to about its last second)."""
        malformed = units = 0
        frames: tuple[tuple[UnkeptKind, int], ...] = ()
        for event in self.events:
            if isinstance(event.value, MalformedUnkept):
                malformed = event.value.count
            elif isinstance(event.value, FramesUnkept):
                frames, units = tuple(event.value.counts.items()), event.value.units
        return Unkept(malformed, frames, units)

    @property
    def script_notes(self) -> tuple[str, ...] | None:
        """What its caller script could not do, as last noted; None: no script drove it."""
        noted = [e.value for e in self.events if isinstance(e.value, ScriptNoted)]
        return noted[-1].notes if noted else None

    @property
    def damage(self) -> str:
        """The recorded events that could not be read, said after why a report was rebuilt:
        the first, and how many more ("" when none)."""
        damaged = [e.value for e in self.events if isinstance(e.value, DamagedEvent)]
        if not damaged:
            return ""
        more = f" (and {len(damaged) - 1:,} more)" if len(damaged) > 1 else ""
        return f"; {damaged[0].words}{more}"

    def unfinished(self) -> Unfinished:
        """Why the call has no end in its record, in words (see :func:`unended_words`)."""
        return Unfinished(
            unended_words(self.row, self.crashed) + self.damage, self.last_ms, self.crashed
        )


def unended_words(row: SessionRow, crashed: bool) -> str:
    """Why a stored call's report has no end, in words."""
    if crashed:
        why = "the call's process stopped before the call ended (killed or crashed)"
    elif row.recording_stopped:
        why = "the recording stopped before the call ended"
    else:
        return "the call is still in progress; this report is what was recorded so far"
    return f"{why}; this report is rebuilt from what was recorded up to then"
