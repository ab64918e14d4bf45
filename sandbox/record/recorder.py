"""The recorder: every frame both directions as it crosses (of those the call has no more
use for, a sample and a count), the runtime's events, and the call's report. With a
:class:`~sandbox.record.writer.SessionWriter` the session is also written to the store while
the call runs (raw bytes for frames), so nothing is lost."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.call.brain_frames import opens_unit, speech_chars
from sandbox.call.core import CallCore, shortened
from sandbox.call.inputs import BrainMalformed, CoreInput, FromBrain
from sandbox.call.surplus import SurplusFrame
from sandbox.call.units import MAX_CHUNK_CHARS
from sandbox.line.profile import LineProfile
from sandbox.private_files import private_folder, write_file
from sandbox.record.call_record import RecordTracker
from sandbox.record.call_report import ReportHead, Unkept, call_report
from sandbox.record.conversation_log import ConversationLog
from sandbox.record.frame_log import FrameLog
from sandbox.record.frame_report import HEAD, FrameArm, FrameReport
from sandbox.record.input_log import InputsUnkept, stored_input
from sandbox.record.report import (
    Report,
    report_json,
    report_text,
)
from sandbox.record.store import short_id
from sandbox.record.stored_events import (
    FrameCut,
    FramesUnkept,
    FramesUnkeptFrom,
    MalformedUnkept,
    Recorded,
    event_row,
)
from sandbox.record.unkept_kinds import OVERSIZED, UnkeptKind
from sandbox.record.writer import SessionEnd, SessionWriter
from sandbox.wire import pb
from sandbox.wire.direction import Direction
from sandbox.wire.plain import describe

#: The most of one text field a frame's record keeps for the report and the screen (the
#: store keeps the frame's bytes, whole but for a frame cut as below): a 10 MB chunk must
#: not make a 30 MB report. The longest chunk the call takes
#: (``sandbox.call.units.MAX_CHUNK_CHARS``), so no frame the call accepted is shortened.
SHOWN_CHARS = MAX_CHUNK_CHARS
#: Messages from the brain that are no envelope, kept whole (store, report, screen); later
#: ones are only counted (the report's ``malformed_unkept``, and a ``malformed_unkept``
#: event in the store): 300,000 one-byte messages kept each cost 713 MB and a 70 MB report.
MALFORMED_KEPT = 100
#: A frame the call drops for its size (a chunk over MAX_CHUNK_CHARS), or any message over
#: CUT_OVER_BYTES, is kept as its first CUT_KEPT_BYTES and its length: in the store (a
#: ``frame_cut`` event names the frame's place and length) and in the report (its text's
#: first CUT_KEPT_BYTES characters). Kept whole, thirty 15 MB chunks cost 871 MB. No frame
#: the call takes comes near CUT_OVER_BYTES: its longest is a chunk of 64 Ki characters.
CUT_KEPT_BYTES = 4096
CUT_OVER_BYTES = 2**20
#: Of the frames the call has no more use for (:mod:`sandbox.call.surplus`), each unit's
#: first SAMPLE_KEPT of each kind are kept (after the end: the call's first), and so are the
#: call's first SAMPLE_KEPT frames cut as above; later ones are only counted, by kind (the
#: report's ``frames_unkept``; in the store a ``frames_unkept_from`` event where counting
#: began, and a ``frames_unkept`` event with the counts so far, at most each UNKEPT_NOTE_MS
#: while counting and at the end, so a call that dies keeps them too). A brain that stops
#: a unit when told leaves far fewer than this behind it; one that never stops, or sends
#: 15 MB messages for a minute, no longer grows the record with them.
SAMPLE_KEPT = 100
#: Of each kind, the most frames kept over all units: a brain naming a new unit in every frame
#: (a unit for ever, or chunks for ids never opened) would otherwise keep a sample of each.
KIND_KEPT = 10 * SAMPLE_KEPT
#: How often, at most, the counts of frames not kept are written to the store as they grow.
UNKEPT_NOTE_MS = 1000


@dataclass(frozen=True)
class FrameRecord:
    """One frame as it crossed. ``dir`` is from the runtime's side: "in" from the brain;
    ``type`` its arm (or why it has none); ``fields`` its body's, which depend on the arm."""

    t_ms: int
    dir: Direction
    type: FrameArm
    fields: dict[str, Any]

    @classmethod
    def of(cls, t_ms: int, direction: str, arm: str, fields: dict[str, Any]) -> FrameRecord:
        """A frame as the wire's words name its side and arm (a ValueError for a word that
        is neither: a damaged store's row)."""
        return cls(t_ms, Direction(direction), FrameArm(arm), fields)

    def as_json(self) -> dict[str, Any]:
        """The report's shape: t_ms, dir, type, then the body's fields (an RTVI frame's own
        ``type`` becomes ``rtvi_type`` so it cannot shadow the frame's)."""
        head: dict[str, Any] = {"t_ms": self.t_ms, "dir": self.dir, "type": self.type}
        for name, value in self.fields.items():
            head[f"{self.type}_{name}" if name in head else name] = value
        return head

    def as_report(self) -> FrameReport:
        """The frame as the report keeps it (:class:`FrameReport`: the same shape, typed)."""
        body = {k: v for k, v in self.as_json().items() if k not in HEAD}
        return FrameReport(self.t_ms, self.dir, self.type, body)


@dataclass
class Recorder:
    """Collects frames as they cross; builds and writes the report when the call ends."""

    session_id: str
    brain_url: str
    #: How the brain is shown (see :mod:`sandbox.record.session_words`); None: its URL.
    brain_name: str | None = None
    #: The phone line the call was on; None: none (the laptop's wideband path).
    line: LineProfile | None = None
    started_at: float = field(default_factory=time.time)
    _crossed: FrameLog[FrameRecord] = field(default_factory=FrameLog)
    writer: SessionWriter | None = None
    tracker: RecordTracker = field(default_factory=RecordTracker)
    #: The report's conversation: the host folds each effect into it as it carries it out.
    conversation: ConversationLog = field(default_factory=ConversationLog)
    #: The report the call ended with, once it has.
    final_report: Report | None = None
    #: Messages from the brain that were no envelope, past MALFORMED_KEPT: counted only.
    malformed_unkept: int = 0
    _malformed_kept: int = 0
    #: Frames only counted, past SAMPLE_KEPT, by kind.
    frames_unkept: dict[UnkeptKind, int] = field(default_factory=dict)
    #: Units only counted (the core's count, as of the call's end).
    units_unkept: int = 0
    _sampled: dict[tuple[str, int], int] = field(default_factory=dict)  # kept, by kind and unit
    _kind_kept: dict[str, int] = field(default_factory=dict)  # kept, by kind, all units
    _stored: int = 0  # frames handed to the writer: the next one's place in the store
    _unkept_noted_ms: int | None = None  # when the counts were last written to the store
    #: Each frame from the brain kept in the store and not yet fed, by its envelope's
    #: identity: the envelope (held, so the identity is not another's) and its place among
    #: the stored frames (its input names it, see ``fed``; None: it was kept cut).
    _in_frames: dict[int, tuple[pb.Envelope, int | None]] = field(default_factory=dict)
    _inputs_unkept: bool = False  # an input was left out of the store (see ``fed``)

    @property
    def keeps_events(self) -> bool:
        """Whether :meth:`event` keeps what it is given (a store is written): when not, an
        event's data need not be built."""
        return self.writer is not None

    @property
    def frames(self) -> list[FrameRecord]:
        """Every frame that crossed so far, in order (described afresh on each read; a frame
        the same as the one before it, as a flood's are, is described once)."""
        out: list[FrameRecord] = []
        last: tuple[bytes, str, dict[str, Any]] | None = None
        for entry in self._crossed:
            if not isinstance(entry, tuple):
                out.append(entry)
                continue
            t_ms, direction, raw = entry
            if last is None or last[0] != raw:
                last = (raw, *_described(pb.Envelope.FromString(raw)))
            out.append(FrameRecord.of(t_ms, direction, last[1], last[2]))
        return out

    def frame(
        self,
        direction: str,
        env: pb.Envelope,
        t_ms: int,
        raw: bytes,
        surplus: SurplusFrame | None = None,
    ) -> FrameRecord | None:
        """Record one decoded envelope (see :meth:`keep_frame`) and describe it as the report
        and the screen show it: its type and fields, a long text field's start. None:
        past its sample, it was only counted (nothing kept to show)."""
        kept = self._kept(direction, env, t_ms, raw, surplus)
        if kept is None:
            return None
        if isinstance(kept, FrameRecord):  # cut: its record is already made
            return kept
        arm, shown = _described(env)
        return FrameRecord.of(t_ms, direction, arm, shown)

    def keep_frame(
        self,
        direction: str,
        env: pb.Envelope,
        t_ms: int,
        raw: bytes,
        surplus: SurplusFrame | None = None,
    ) -> bool:
        """Record one decoded envelope without describing it (:attr:`frames` does, when
        read); ``raw`` is its bytes as they crossed (kept whole in the store but for a frame
        over CUT_OVER_BYTES or dropped for its size). ``surplus``: the call has no more use
        for it. Past the sample (SAMPLE_KEPT) such a frame, and one cut for its size, is
        only counted (False)."""
        return self._kept(direction, env, t_ms, raw, surplus) is not None

    def _kept(
        self,
        direction: str,
        env: pb.Envelope,
        t_ms: int,
        raw: bytes,
        surplus: SurplusFrame | None,
    ) -> FrameRecord | bool | None:
        """:meth:`keep_frame`'s work: None when only counted, else the record of a frame
        kept cut, or True for one kept whole (described only when read)."""
        cut = _is_cut(env, raw)
        if surplus is not None:
            # A SpeechStart is its unit's first frame, so always kept unless the core handles
            # it anyway: each one opens a unit owed its Finalize (the kind's cap does not
            # take that from it).
            capped = surplus.handled or not opens_unit(env)
            if not self._sample(surplus.kind.value, surplus.speech_id, t_ms, capped=capped):
                return None
        elif cut and not self._sample(OVERSIZED, 0, t_ms):
            return None
        kept: FrameRecord | bool = True
        if cut:
            kept = _cut_record(t_ms, direction, env, raw)
            self._crossed.add_other(kept)
        else:
            self._crossed.add_frame(t_ms, direction, raw)
        if direction == "in" and self.writer is not None:
            self._in_frames[id(env)] = (env, None if cut else self._stored)
        self._keep(t_ms, direction, raw, cut=cut)
        return kept

    def undecodable(
        self, direction: str, detail: str, raw: bytes | str, t_ms: int
    ) -> FrameRecord | None:
        """Record a message that was not an envelope; past MALFORMED_KEPT of them only
        count it (None: nothing kept to show)."""
        if self._malformed_kept >= MALFORMED_KEPT:
            self.malformed_unkept += 1
            self._note_unkept(t_ms)
            return None
        self._malformed_kept += 1
        fields = {"detail": detail, "bytes": len(raw)}
        record = FrameRecord.of(t_ms, direction, "undecodable", fields)
        self._crossed.add_other(record)
        self._keep(t_ms, direction, raw, cut=len(raw) > CUT_OVER_BYTES)
        return record

    def count_past_sample(self, kind: str, t_ms: int) -> bool:
        """Count a frame of ``kind`` (one of the call's, no unit's) without reading it, if
        that kind's sample is full; False: it is to be recorded as any other."""
        if self._sampled.get((kind, 0), 0) < SAMPLE_KEPT:
            return False
        return not self._sample(kind, 0, t_ms)

    def _sample(self, kind: str, speech_id: int, t_ms: int, *, capped: bool = True) -> bool:
        """Whether a frame of ``kind`` (naming unit ``speech_id``; 0: none) is kept: the
        first SAMPLE_KEPT of each unit are, up to KIND_KEPT of the kind in all (a flood
        naming a new unit each frame is no smaller for it); later ones are counted, and the
        first of them marks in the store where counting began (``speech_id`` -1: for every
        unit of the kind). Not ``capped``: only the unit's own sample holds it."""
        key, counted = (kind, speech_id), UnkeptKind(kind)
        seen = self._sampled.get(key, 0)
        of_kind = self._kind_kept.get(kind, 0)
        if seen < SAMPLE_KEPT and (of_kind < KIND_KEPT or not capped):
            self._sampled[key] = seen + 1
            if capped:
                self._kind_kept[kind] = of_kind + 1
            return True
        if seen == SAMPLE_KEPT:  # this unit's sample is full: noted once
            self._sampled[key] = seen + 1
            self.event(t_ms, FramesUnkeptFrom(counted, self._stored, speech_id, SAMPLE_KEPT))
        elif of_kind == KIND_KEPT:  # the kind's is: noted once, no entry per unit from now
            self._kind_kept[kind] = of_kind + 1
            self.event(t_ms, FramesUnkeptFrom(counted, self._stored, -1, KIND_KEPT))
        self.frames_unkept[counted] = self.frames_unkept.get(counted, 0) + 1
        self._note_unkept(t_ms)
        return False

    def _note_unkept(self, t_ms: int, *, final: bool = False) -> None:
        """Write the counts of what was not kept to the store, at most each UNKEPT_NOTE_MS
        (and always ``final``ly): a rebuilt report reads the last."""
        noted = self._unkept_noted_ms
        if not final and noted is not None and t_ms - noted < UNKEPT_NOTE_MS:
            return
        self._unkept_noted_ms = t_ms
        if self.malformed_unkept:
            self.event(t_ms, MalformedUnkept(self.malformed_unkept, MALFORMED_KEPT))
        if self.frames_unkept or self.units_unkept:
            counts = dict(self.frames_unkept)
            self.event(t_ms, FramesUnkept(counts, SAMPLE_KEPT, self.units_unkept))

    def event(self, t_ms: int, value: Recorded) -> None:
        """One of the runtime's own events, for the stored session (the report has none),
        kept as its kind and fields (:mod:`sandbox.record.stored_events`)."""
        if self.writer is not None:
            self.writer.event(t_ms, *event_row(value))

    def fed(self, t_ms: int, fed: CoreInput, *, kept: bool = True) -> None:
        """The core is fed ``fed`` at ``t_ms``: stored as it is fed, so the stored call can be
        fed through a fresh core again (:mod:`sandbox.record.input_log`). A frame from the
        brain names its place among the stored frames, or is stored in the event when the
        store kept it cut. A frame or a message the record only counted (a flood past its
        sample) is not stored either: the first such input is noted (``InputsUnkept``), and
        the stored call is then read from the core's records it kept, not fed again. Not
        ``kept``: the input names a unit the record does not keep, and is left out so."""
        if self.writer is None:
            return
        if not kept:
            self._input_unkept(t_ms, "playout's work on a unit not kept, only counted")
            return
        frame = None
        if isinstance(fed, FromBrain):
            held = self._in_frames.pop(id(fed.env), None)
            if held is None or held[0] is not fed.env:
                self._input_unkept(t_ms, "a frame from the brain only counted")
                return
            frame = held[1]
        elif isinstance(fed, BrainMalformed) and self.malformed_unkept:
            self._input_unkept(t_ms, "a message that was no envelope, only counted")
            return
        stored = stored_input(fed, frame)
        self.event(t_ms, stored)

    def _input_unkept(self, t_ms: int, what: str) -> None:
        if not self._inputs_unkept:
            self._inputs_unkept = True
            self.event(t_ms, InputsUnkept(what))

    def follow(self, core: CallCore, t_ms: int) -> None:
        """Record the call record's findings decided since the last call (entity_heard,
        entity_readback, names, promises), as events at ``t_ms``, while the call runs."""
        if self.writer is None:
            return
        for judged in self.tracker.update(core):
            self.event(t_ms, judged)

    def finish(
        self, core: CallCore, duration_ms: int, script_notes: Sequence[str] | None = None
    ) -> Report:
        """The call is over: its report, which the stored session keeps with its index.
        ``script_notes``: what a scripted caller noted, kept in the report."""
        self.follow(core, duration_ms)  # what only the end decides (a read-back never answered)
        self.units_unkept = core.units_unkept
        self._note_unkept(duration_ms, final=True)
        report = self.report(core, script_notes)
        self.final_report = report
        if self.writer is not None:
            ended = core.ended
            cut = [u for u in core.units if u.interrupted]
            self.writer.finish(
                SessionEnd(
                    outcome=report.outcome,
                    ended_by=report.ended_by,
                    end_detail=report.end_detail,
                    duration_ms=duration_ms if ended else 0,
                    caller_turns=len(report.caller_turns),
                    units=len(core.units) + core.units_unkept,
                    cuts=len(cut),
                    errors=len(report.errors),
                    report=report_json(report),
                )
            )
            self.writer = None
            self._in_frames.clear()  # read after the end: never fed
        return report

    def _keep(self, t_ms: int, direction: str, raw: bytes | str, *, cut: bool = False) -> None:
        """Hand the frame to the store: whole, or (``cut``) its first CUT_KEPT_BYTES and an
        event saying where it was and how long."""
        if self.writer is not None:
            if cut:
                self.event(t_ms, FrameCut(self._stored, len(raw), CUT_KEPT_BYTES))
                raw = raw[:CUT_KEPT_BYTES]
            self.writer.frame(t_ms, direction, raw)
        self._stored += 1

    def report(self, core: CallCore, script_notes: Sequence[str] | None = None) -> Report:
        """The call's report, built from the core's ledger and units and the conversation
        folded from its effects (:mod:`sandbox.record.call_report`)."""
        head = ReportHead(
            self.session_id,
            self.brain_url,
            self.brain_name,
            None if self.line is None else self.line.summary(),
            self.started_at,
            self.line,
        )
        unkept = Unkept(self.malformed_unkept, tuple(self.frames_unkept.items()))
        frames = [f.as_report() for f in self.frames]
        return call_report(
            head, core, self.conversation.records, frames, unkept, script_notes=script_notes
        )

    def write(
        self,
        path: Path,
        core: CallCore,
        duration_ms: int = 0,
        script_notes: Sequence[str] | None = None,
    ) -> Path:
        """Finish the session and export its report to ``path``, atomically (a crash
        mid-write leaves the previous file whole)."""
        report = self.finish(core, duration_ms, script_notes)
        private_folder(path.parent)
        write_file(path, report_text(report))  # private: what the caller said
        return path


def _described(env: pb.Envelope, chars: int = SHOWN_CHARS) -> tuple[str, dict[str, Any]]:
    """The frame's type and its fields as the report keeps them, text up to ``chars``."""
    arm, fields = describe(env)
    return arm, {name: _shortened(value, chars) for name, value in fields.items()}


def _shortened(value: Any, chars: int) -> Any:
    """A field as the report keeps it: text up to ``chars`` (see :func:`shortened`)."""
    return shortened(value, chars) if isinstance(value, str) else value


def _cut_record(t_ms: int, direction: str, env: pb.Envelope, raw: bytes) -> FrameRecord:
    """A cut frame as the record keeps it: its start described, and its length."""
    arm, shown = _described(env, CUT_KEPT_BYTES)
    return FrameRecord.of(t_ms, direction, arm, {**shown, "bytes": len(raw)})


def _is_cut(env: pb.Envelope, raw: bytes) -> bool:
    """A frame the record keeps only the start of: over CUT_OVER_BYTES, or dropped for its
    size by the call."""
    return len(raw) > CUT_OVER_BYTES or _dropped_for_size(env, raw)


def _dropped_for_size(env: pb.Envelope, raw: bytes) -> bool:
    """A chunk the call drops whole for its length (``sandbox.call.units``). Its text is
    read only when its bytes could hold that many characters: reading makes a copy."""
    return len(raw) > MAX_CHUNK_CHARS and speech_chars(env) > MAX_CHUNK_CHARS


def default_report_path(session_id: str, started_at: float | None = None) -> Path:
    """Where a call's report goes when the user did not say: the data dir's sessions folder."""
    from sandbox.paths import data_dir

    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(started_at))
    return data_dir() / "sessions" / f"{stamp}-{short_id(session_id)}.json"
