"""Frames the call has no more use for are counted, not kept (issue 43), on a fake clock.

The core says which frames from the brain are surplus (a unit that is over, a unit past its
limit, anything after the end); the recorder keeps a sample of each kind, per unit, and
counts the rest, in the report and in the store. Each test drives the core and the recorder
as the host does: every frame is judged, then recorded; a frame kept is handled, and one
only counted is told to the core as text dropped (``CallCore.counted``).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import pytest
from call_rig import Rig
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from waiting import until

from sandbox.call.core import MAX_REQUESTS_KEPT, MAX_RTVI_KEPT, MAX_TURN_STEPS
from sandbox.call.effects import DeadAir, Effect, SendFrame, ToApp
from sandbox.call.inputs import FromBrain, HangUp, UnitCounted
from sandbox.call.surplus import Surplus, SurplusFrame
from sandbox.call.turn_records import RequestAnswered
from sandbox.call.unit_sample import MAX_UNITS_KEPT
from sandbox.call.units import MAX_CHUNK_CHARS, MAX_UNIT_CHARS, MAX_UNIT_CHUNKS, Fate
from sandbox.record.recorder import (
    KIND_KEPT,
    SAMPLE_KEPT,
    UNKEPT_NOTE_MS,
    Recorder,
)
from sandbox.record.report import Report
from sandbox.record.session_kinds import CallMode, Leg
from sandbox.record.store import SessionStore
from sandbox.record.stored_call import StoredCall
from sandbox.record.unkept_kinds import OVERSIZED, UnkeptKind
from sandbox.record.writer import BATCH_S, SessionWriter
from sandbox.wire import pb
from sandbox.wire.catalog import VOQALIZE_ARMS
from sandbox.wire.codec import envelope

BRAIN_URL = "ws://127.0.0.1:1/brain"


class RecordedRig(Rig):
    """The core on a fake clock with a recorder, wired as the host wires them."""

    __test__ = False

    def __init__(self, writer: SessionWriter | None = None, ms_per_word: int = 100) -> None:
        super().__init__(ms_per_word)
        self.recorder = Recorder(self.core.session_id, BRAIN_URL, writer=writer)

    def take(self, effects: Iterable[Effect]) -> list[Effect]:
        batch = super().take(effects)
        for effect in batch:
            if isinstance(effect, SendFrame):
                env = effect.env
                raw = env.SerializeToString()
                self.recorder.frame("out", env, self.now, raw, effect.surplus)
        return batch

    def brain(self, body: Message) -> list[Effect]:
        env = envelope(body)
        surplus = self.core.surplus(env)
        kept = self.recorder.frame("in", env, self.now, env.SerializeToString(), surplus)
        if surplus is None or kept is not None or surplus.handled:
            return self.take(self.core.handle(FromBrain(env), self.now))
        if surplus.kind is Surplus.AFTER_END:
            return []
        chars = len(env.speech_chunk.text)
        return self.take(self.core.handle(UnitCounted(surplus.speech_id, chars), self.now))

    def kept(self, kind: str, speech_id: int | None = None) -> int:
        """Frames from the brain of ``kind`` kept in the record (of unit ``speech_id``)."""
        return sum(
            1
            for f in self.recorder.frames
            if f.dir == "in"
            and f.type == kind
            and (speech_id is None or f.fields.get("speech_id") == speech_id)
        )


def greeted(writer: SessionWriter | None = None, ms_per_word: int = 100) -> RecordedRig:
    rig = RecordedRig(writer, ms_per_word)
    rig.start()
    rig.say(1, 1, "Hi.")
    rig.advance(1_000)
    rig.caller("Hello?")
    return rig


def barged_flood(chunks: int, writer: SessionWriter | None = None) -> RecordedRig:
    """Unit 2 answers, the caller barges in, and the brain streams ``chunks`` more chunks
    for the dead unit, then its SpeechEnd."""
    rig = greeted(writer)
    rig.open(2, 2)
    rig.chunk(2, "Let me see what I can do. ")
    rig.advance(300)
    rig.barge_in()
    for _ in range(chunks):
        rig.chunk(2, "word ")
    rig.end(2)
    return rig


def test_the_core_names_the_frames_it_has_no_more_use_for() -> None:
    rig = greeted()
    rig.open(2, 2)
    chunk = envelope(pb.SpeechChunk(speech_id=2, text="more"))
    assert rig.core.surplus(chunk) is None  # a live unit's
    rig.chunk(2, "Let me see. ")
    rig.barge_in()
    dead = SurplusFrame(Surplus.DEAD_UNIT, 2)
    assert rig.core.surplus(chunk) == dead
    assert rig.core.surplus(envelope(pb.SpeechEnd(speech_id=2))) == dead
    # A unit opened for the dead turn is dead on arrival, its SpeechStart too.
    late = envelope(pb.SpeechStart(speech_id=3, turn_id=2))
    assert rig.core.surplus(late) == SurplusFrame(Surplus.DEAD_UNIT, 3)
    rig.caller("Stop.")
    assert rig.core.surplus(envelope(pb.SpeechStart(speech_id=4, turn_id=3))) is None
    assert rig.core.surplus(envelope(pb.TurnStep(turn_id=3, kind="model"))) is None
    # A unit never opened, unless a SpeechStart read ahead of the core may yet open it; a
    # SpeechCancel naming one cuts nothing (it draws a PROTOCOL Error), so it is as surplus.
    unopened = envelope(pb.SpeechChunk(speech_id=9, text="who?"))
    assert rig.core.surplus(unopened) == SurplusFrame(Surplus.UNKNOWN_UNIT, 9)
    assert rig.core.surplus(unopened, starts_waiting=True) is None
    cancel = envelope(pb.SpeechCancel(speech_id=9))
    assert rig.core.surplus(cancel) == SurplusFrame(Surplus.UNKNOWN_UNIT, 9)
    assert rig.core.surplus(cancel, starts_waiting=True) is None
    rig.feed(HangUp())
    for body in (pb.SpeechStart(speech_id=4, turn_id=3), pb.TurnStep(turn_id=3), pb.End()):
        assert rig.core.surplus(envelope(body)) == SurplusFrame(Surplus.AFTER_END)


def test_after_the_brains_end_every_frame_is_surplus_while_the_call_plays_out() -> None:
    rig = greeted()
    rig.open(2, 2)
    rig.chunk(2, "One last thing to say.")
    rig.brain(pb.End())
    assert rig.core.ended is None  # what it relayed still plays
    chunk = envelope(pb.SpeechChunk(speech_id=2, text="and more"))
    assert rig.core.surplus(chunk) == SurplusFrame(Surplus.AFTER_END)


def test_a_unit_takes_at_most_its_chunk_limit_whatever_their_size() -> None:
    """One-character chunks pass the chunk limit long before the character limit: the
    chunk that crosses it is one PROTOCOL Error, the rest counted and only sampled."""
    rig = greeted()
    rig.open(2, 2)
    over = 500
    for _ in range(MAX_UNIT_CHUNKS + over):
        rig.chunk(2, "w")
    unit = rig.core.unit(2)
    assert unit is not None and unit.past_cap and unit.chunks == MAX_UNIT_CHUNKS
    assert unit.kept_chars == MAX_UNIT_CHUNKS < MAX_UNIT_CHARS
    assert unit.dropped_chars == over
    (error,) = rig.errors()
    assert error.code == pb.ERROR_CODE_PROTOCOL and "the most one unit keeps" in error.message
    # Every chunk it took is kept, and the one that crossed the limit; of the rest a sample.
    assert rig.kept("speech_chunk", 2) == MAX_UNIT_CHUNKS + 1 + SAMPLE_KEPT
    assert rig.recorder.frames_unkept == {Surplus.PAST_CAP.value: over - 1 - SAMPLE_KEPT}
    # Its SpeechEnd is no surplus: the unit plays out what it kept.
    rig.end(2)
    rig.advance(5_000)
    assert rig.kept("speech_end", 2) == 1
    assert unit.fate is Fate.PLAYED and unit.heard == "w" * MAX_UNIT_CHUNKS


def test_a_brain_streaming_past_the_limit_is_no_dead_air() -> None:
    """Past its limit and its sample, a unit's chunks are only counted, but the brain is
    still sending: once the kept text has played, the line is quiet but the brain is not
    silent. When it stops sending, the dead air shows."""
    rig = greeted(ms_per_word=1)
    rig.open(2, 2)
    rig.chunk(2, "word " * (MAX_UNIT_CHARS // 10))
    rig.chunk(2, "word " * (MAX_UNIT_CHARS // 10))
    for _ in range(1 + SAMPLE_KEPT):  # the chunk that passes the limit, then the sample
        rig.chunk(2, "word ")
    streamed = 300
    for _ in range(streamed):  # 30 s: the kept text plays out in 20
        rig.advance(100)
        rig.chunk(2, "word ")
    unit = rig.core.unit(2)
    assert unit is not None and unit.cursor.words_heard == MAX_UNIT_CHARS // 5
    assert rig.recorder.frames_unkept == {"past_cap": streamed}
    assert unit.dropped_chars == len("word ") * (1 + SAMPLE_KEPT + streamed)
    assert rig.of(DeadAir) == []
    rig.advance(2_000)  # the brain goes quiet
    assert [gap.speech_id for gap in rig.of(DeadAir)] == [2]


def test_a_dead_units_frames_past_the_sample_are_counted_in_the_report() -> None:
    sent = 5 * SAMPLE_KEPT
    rig = barged_flood(sent)
    # The live chunk, then the dead unit's first SAMPLE_KEPT frames; its SpeechEnd counted.
    assert rig.kept("speech_chunk", 2) == 1 + SAMPLE_KEPT
    assert rig.kept("speech_end", 2) == 0
    unkept = sent + 1 - SAMPLE_KEPT
    assert rig.recorder.frames_unkept == {"dead_unit": unkept}
    report = rig.recorder.finish(rig.core, rig.now)
    assert report.frames_unkept == {"dead_unit": unkept}
    # The unit keeps the sample's text; the rest is counted as dropped.
    (unit,) = [u for u in report.units if u.speech_id == 2]
    assert unit.fate == "barged" and len(unit.discarded) == SAMPLE_KEPT
    assert unit.generated == "Let me see what I can do. " + "word " * SAMPLE_KEPT
    assert unit.dropped_chars == len("word ") * (sent - SAMPLE_KEPT)


def test_each_unit_has_a_sample_of_its_own() -> None:
    """A brain that stops when told leaves a few frames behind each cut: every cut in a
    long call keeps them, however many cuts came before."""
    rig = barged_flood(SAMPLE_KEPT // 2)
    for sid in range(3, 10):
        rig.caller(f"Line {sid}.")
        rig.open(sid, sid)
        rig.chunk(sid, "Sure. ")
        rig.advance(300)
        rig.barge_in()
        for _ in range(SAMPLE_KEPT // 2):
            rig.chunk(sid, "word ")
        rig.end(sid)
        assert rig.kept("speech_chunk", sid) == 1 + SAMPLE_KEPT // 2
    assert rig.recorder.frames_unkept == {}


def test_a_floods_frames_read_back_each_as_it_crossed() -> None:
    """Alike frames are described once for the report; each keeps its own time."""
    rig = greeted()
    rig.open(2, 2)
    for text in ("word ", "word ", "word ", "other ", "word "):
        rig.advance(7)
        rig.chunk(2, text)
    chunks = [f for f in rig.recorder.frames if f.fields.get("speech_id") == 2][1:]
    assert [f.type for f in chunks] == ["speech_chunk"] * 5
    assert [f.fields["text"] for f in chunks] == ["word ", "word ", "word ", "other ", "word "]
    times = [f.t_ms for f in chunks]
    assert times == sorted(set(times)) and times[1] - times[0] == 7


def test_the_record_is_bounded_by_design_not_by_the_floods_length() -> None:
    short, long = barged_flood(2 * SAMPLE_KEPT), barged_flood(40 * SAMPLE_KEPT)
    assert len(long.recorder.frames) == len(short.recorder.frames)
    assert (
        long.recorder.frames_unkept[UnkeptKind(Surplus.DEAD_UNIT)]
        > short.recorder.frames_unkept[UnkeptKind(Surplus.DEAD_UNIT)]
    )


def test_after_the_end_a_sample_is_kept_and_the_rest_counted_unread() -> None:
    rig = greeted()
    rig.open(2, 2)
    rig.chunk(2, "Let me see. ")
    rig.feed(HangUp())
    kept_before = len(rig.recorder.frames)
    for _ in range(2 * SAMPLE_KEPT):
        rig.chunk(2, "word ")
    assert len(rig.recorder.frames) == kept_before + SAMPLE_KEPT
    assert rig.recorder.frames_unkept == {"after_end": SAMPLE_KEPT}
    # Once the sample is full, the host counts a message without decoding it.
    assert rig.recorder.count_past_sample(Surplus.AFTER_END, rig.now)
    assert rig.recorder.frames_unkept == {"after_end": SAMPLE_KEPT + 1}
    fresh = greeted()
    assert not fresh.recorder.count_past_sample(Surplus.AFTER_END, fresh.now)


def test_frames_cut_for_their_size_are_kept_up_to_the_sample() -> None:
    rig = greeted()
    rig.open(2, 2)
    huge = "x" * (MAX_CHUNK_CHARS + 1)
    for _ in range(SAMPLE_KEPT + 7):
        rig.chunk(2, huge)
    cut = [f for f in rig.recorder.frames if f.fields.get("bytes", 0) > MAX_CHUNK_CHARS]
    assert len(cut) == SAMPLE_KEPT
    assert rig.recorder.frames_unkept == {OVERSIZED: 7}


def test_the_store_keeps_the_sample_and_says_where_counting_began(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    writer = SessionWriter(
        Rig().core.session_id, brain_url=BRAIN_URL, leg=Leg.DIRECT, mode=CallMode.SIM, path=path
    )
    sent = 3 * SAMPLE_KEPT
    rig = barged_flood(sent, writer)
    report = rig.recorder.finish(rig.core, rig.now)
    with SessionStore(path) as store:
        frames = store.frames(rig.core.session_id)
        events = store.events(rig.core.session_id)
    assert len(frames) == len(rig.recorder.frames)
    (began,) = [e.data for e in events if e.kind == "frames_unkept_from"]
    assert began == {"kind": "dead_unit", "speech_id": 2, "seq": began["seq"], "kept": SAMPLE_KEPT}
    # Nothing of unit 2 is stored from that place on: the frames before it are its sample.
    dead = [
        f.seq
        for f in frames
        if f.dir == "in" and pb.Envelope.FromString(f.raw).speech_chunk.speech_id == 2
    ]
    assert max(dead) < began["seq"] and len(dead) == 1 + SAMPLE_KEPT
    counts = [e.data for e in events if e.kind == "frames_unkept"][-1]
    assert counts == {"counts": dict(report.frames_unkept or {}), "kept": SAMPLE_KEPT, "units": 0}
    assert counts["counts"] == {"dead_unit": sent + 1 - SAMPLE_KEPT}


def test_a_call_that_dies_mid_flood_reads_back_its_counts_so_far(tmp_path: Path) -> None:
    """The counts are written as they grow (at most each UNKEPT_NOTE_MS), so a call killed
    in a flood reads back with what it counted up to about its last second, not with none."""
    path = tmp_path / "sessions.db"
    writer = SessionWriter(
        Rig().core.session_id, brain_url=BRAIN_URL, leg=Leg.DIRECT, mode=CallMode.SIM, path=path
    )
    rig = greeted(writer)
    rig.open(2, 2)
    rig.chunk(2, "Let me see. ")
    rig.advance(300)
    rig.barge_in()
    for _ in range(5):  # five seconds of a dead unit's chunks, 400 a second
        for _ in range(400):
            rig.chunk(2, "word ")
        rig.advance(UNKEPT_NOTE_MS)
    counted = dict(rig.recorder.frames_unkept)
    time.sleep(BATCH_S)  # the last count written at 4 s, committed; then the process "dies"

    def rebuilt() -> Report | None:
        with SessionStore(path) as store:
            call = StoredCall.load(store, store.find(rig.core.session_id))
            report = replace(call, crashed=True).rebuilt
        return report if report.frames_unkept else None

    report = until(rebuilt, "the counts committed")
    assert counted == {"dead_unit": 5 * 400 - SAMPLE_KEPT}
    # Written at the first frame counted, then at the first frame of each second after: the
    # last at the fifth second's first frame (a call killed loses at most a second's counts).
    assert report.frames_unkept == {"dead_unit": counted[UnkeptKind(Surplus.DEAD_UNIT)] - 399}


def test_a_flood_naming_a_new_unit_each_frame_keeps_a_sample_of_the_kind() -> None:
    """Each dead unit keeps its own sample, but all of them together keep at most KIND_KEPT
    of the frames only counted: a brain opening unit after unit for a dead turn kept them
    all before. Past the call's MAX_UNITS_KEPT units, every frame of a unit (its start, its
    chunk, its Finalize) is of one kind, kept up to KIND_KEPT: each unit is still opened and
    Finalized (issue 56)."""
    rig = greeted()
    rig.open(2, 2)
    rig.chunk(2, "Let me see. ")
    rig.advance(300)
    rig.barge_in()  # turn 2 is dead: every unit opened for it is dead on arrival
    units = 3 * KIND_KEPT
    for sid in range(100, 100 + units):
        rig.open(sid, 2)
        rig.chunk(sid, "word ")
    sampled = MAX_UNITS_KEPT - 2  # the greeting and unit 2 opened first
    # The sampled units' frames are all kept; past them, KIND_KEPT frames in all.
    assert rig.kept("speech_start") - 2 >= sampled
    assert rig.kept("speech_start") + rig.kept("speech_chunk") <= 2 * MAX_UNITS_KEPT + KIND_KEPT
    past = 3 * (units - sampled)  # a start, a chunk and a Finalize each
    assert rig.recorder.frames_unkept == {"unit_past_cap": past - KIND_KEPT}
    sent = [e.env for e in rig.effects if isinstance(e, SendFrame)]
    finalized = {env.finalize.speech_id for env in sent if env.HasField("finalize")}
    assert finalized >= set(range(100, 100 + units))


def test_chunks_for_units_never_opened_keep_a_sample_and_draw_errors_while_kept() -> None:
    """001: "Naming 0 or a unit this session never opened: a non-fatal PROTOCOL Error; the
    call continues". Each such frame was kept; a flood naming a new id each time kept all."""
    rig = greeted()
    flood = 3 * KIND_KEPT
    for sid in range(10**9, 10**9 + flood):
        rig.brain(pb.SpeechChunk(speech_id=sid, text="word "))
    assert rig.kept("speech_chunk") == 1 + KIND_KEPT  # the greeting's, and the sample
    assert rig.recorder.frames_unkept == {"unknown_unit": flood - KIND_KEPT}
    errors = [f for f in rig.recorder.frames if f.dir == "out" and f.type == "error"]
    assert errors and all(not f.fields.get("fatal") for f in errors)
    assert rig.core.ended is None


def test_a_turns_steps_past_its_cap_are_counted_not_kept() -> None:
    """A TurnStep is a trace, owed nothing: a turn keeps its first MAX_TURN_STEPS, and
    steps naming turns never minted share one count; the rest are a sample and a count."""
    rig = greeted()
    flood = MAX_TURN_STEPS + 3 * SAMPLE_KEPT
    for n in range(flood):
        rig.brain(pb.TurnStep(turn_id=2, kind="tool", name=f"t{n}"))
        rig.brain(pb.TurnStep(turn_id=10**6 + n, kind="tool", name=f"f{n}"))
    steps = rig.core.ledger.steps
    mine = len([s for s in steps if s.turn_id == 2])
    never = len([s for s in steps if not s.known_turn])
    # Each count fills, then the kind's sample of SAMPLE_KEPT is shared by what comes after.
    assert mine >= MAX_TURN_STEPS and never >= MAX_TURN_STEPS
    assert mine + never == 2 * MAX_TURN_STEPS + SAMPLE_KEPT
    assert rig.recorder.frames_unkept == {
        "step_past_cap": 2 * flood - 2 * MAX_TURN_STEPS - SAMPLE_KEPT
    }


def test_rtvi_past_the_calls_cap_still_crosses_to_the_app_and_is_counted() -> None:
    """001: a brain's server-message crosses to the app; the record keeps MAX_RTVI_KEPT of
    them and a sample, and counts the rest (a flood kept them all)."""
    rig = greeted()
    flood = MAX_RTVI_KEPT + 3 * SAMPLE_KEPT
    crossed = 0
    for n in range(flood):
        body = pb.RTVIFrame(type=pb.RTVI_TYPE_SERVER_MESSAGE, data=f'{{"n": {n}}}')
        crossed += sum(isinstance(e, ToApp) for e in rig.brain(body))
    assert crossed == flood
    # The app is shown every one; the stored call's events keep the first MAX_RTVI_KEPT.
    shown = [e for e in rig.effects if isinstance(e, ToApp)]
    assert len(shown) == flood and sum(e.recorded for e in shown) == MAX_RTVI_KEPT
    assert rig.kept("rtvi") == MAX_RTVI_KEPT + SAMPLE_KEPT
    assert rig.recorder.frames_unkept == {"rtvi_past_cap": flood - MAX_RTVI_KEPT - SAMPLE_KEPT}


def test_every_request_is_answered_and_the_record_keeps_a_sample() -> None:
    """001: every Request is owed a Response. A flood of them is answered whole; the record
    keeps the call's first MAX_REQUESTS_KEPT with their Responses, then a sample of both,
    and counts the rest (200,000 kept whole made a 59 MB report)."""
    rig = greeted()
    flood = MAX_REQUESTS_KEPT + 3 * SAMPLE_KEPT
    for n in range(1, flood + 1):
        rig.brain(pb.Request(request_id=n))
    sent = [e.env for e in rig.effects if isinstance(e, SendFrame)]
    answers = [env.response for env in sent if env.HasField("response")]
    assert [a.request_id for a in answers] == list(range(1, flood + 1))
    assert {a.status for a in answers} == {pb.STATUS_REJECTED}
    # The record's answers stop at the cap; the Requests past it and their Responses share
    # one sample, then are counted.
    recorded = [e for e in rig.effects if isinstance(e, RequestAnswered)]
    assert len(recorded) == MAX_REQUESTS_KEPT
    kept = rig.kept("request") + sum(f.type == "response" for f in rig.recorder.frames)
    assert kept == 2 * MAX_REQUESTS_KEPT + SAMPLE_KEPT
    assert rig.recorder.frames_unkept == {"request_past_cap": 2 * flood - kept}
    assert rig.core.ended is None


def _brain_arms() -> list[str]:
    """Every arm of the envelope a brain may send, read from the schema (not a hand list):
    the brain's own and those both sides send."""
    body = pb.Envelope.DESCRIPTOR.oneofs_by_name["body"]
    return [arm.name for arm in body.fields if arm.name not in VOQALIZE_ARMS]


def _flood_frame(arm: str, n: int, turn: int | None) -> Message:
    """Frame ``n`` of a flood of ``arm``, filled from its schema: every integer ``n`` (a
    fresh id each frame), every text a word; ``turn``: a turn id the call minted instead."""
    kind = pb.Envelope.DESCRIPTOR.fields_by_name[arm].message_type
    assert kind is not None  # every arm of the body is a message
    body: Message = getattr(pb, kind.name)()  # each arm's message is the schema's own
    for field in kind.fields:
        if field.is_repeated or field.containing_oneof is not None:
            continue
        if field.cpp_type in _INTEGERS:
            value = turn if turn is not None and field.name.endswith("turn_id") else n
            setattr(body, field.name, value)
        elif field.type == field.TYPE_STRING:
            setattr(body, field.name, "word ")
    return body


_INTEGERS = {
    FieldDescriptor.CPPTYPE_INT32,
    FieldDescriptor.CPPTYPE_INT64,
    FieldDescriptor.CPPTYPE_UINT32,
    FieldDescriptor.CPPTYPE_UINT64,
    FieldDescriptor.CPPTYPE_ENUM,
}


#: The most frames of one arm a flood keeps, either way: the call's own cap on the arm
#: (1,000 at most), the kind's sample past it, and the frames a cap leaves to other kinds.
ARM_BOUND = 2 * MAX_UNITS_KEPT + 2 * KIND_KEPT


@pytest.mark.parametrize("minted", [False, True], ids=["fresh ids", "the current turn"])
@pytest.mark.parametrize("arm", _brain_arms())
def test_a_flood_of_any_arm_a_brain_sends_is_kept_only_up_to_a_bound(
    arm: str, minted: bool
) -> None:
    """Whatever a brain may send without limit is kept only up to a sample (issue 56): a
    flood of each arm, each frame a fresh id (or for the turn the call is on), keeps no
    more than ARM_BOUND frames each way, however long it goes on. A new arm with no bound
    fails here."""
    rig = greeted()
    flood = ARM_BOUND + KIND_KEPT  # past the bound: an arm with none keeps more
    for n in range(1, flood + 1):
        rig.brain(_flood_frame(arm, n, rig.core.turn if minted else None))
    kept_in = sum(f.dir == "in" for f in rig.recorder.frames)
    kept_out = sum(f.dir == "out" for f in rig.recorder.frames)
    assert kept_in <= ARM_BOUND, f"{arm}: {kept_in} frames kept of {flood}"
    assert kept_out <= ARM_BOUND, f"{arm}: {kept_out} frames sent kept of {flood}"
    assert sum(rig.recorder.frames_unkept.values()) > 0 or rig.recorder.malformed_unkept
