"""The call core's answers to a misbehaving brain, on a fake clock: an open unit left
silent, a brain that never speaks, the chunk, unit and error limits."""

from __future__ import annotations

from call_rig import Rig

from sandbox.call.core import MAX_ERRORS, SILENT_BRAIN_MS, UNIT_STALL_MS
from sandbox.call.effects import BrainStalled, CallState
from sandbox.call.units import MAX_CHUNK_CHARS, MAX_UNIT_CHARS, Bracket, Fate
from sandbox.record.transcript import stall_words
from sandbox.wire import pb


def greeted() -> Rig:
    rig = Rig()
    rig.start()
    rig.say(1, 1, "Hi.")
    rig.advance(1_000)
    rig.caller("Hello?")
    return rig


def test_an_open_unit_left_silent_is_closed_after_the_stall_limit() -> None:
    rig = greeted()
    rig.open(2, 2)
    rig.chunk(2, "Half a sentence")
    rig.advance(UNIT_STALL_MS - 1)
    assert rig.errors() == [] and rig.core.unit(2).bracket is Bracket.OPEN  # type: ignore[union-attr]
    rig.advance(1)
    (error,) = rig.errors()
    assert error.code == pb.ERROR_CODE_TIMEOUT and not error.fatal
    rig.advance(1_000)  # it plays out where its text stops, and is reported once
    assert rig.finalizes()[-1] == (2, "Half a sentence")
    assert rig.core.state is CallState.LISTENING
    rig.chunk(2, " and the rest")  # late: ignored, kept unspoken, no error
    rig.end(2)
    assert len(rig.errors()) == 1 and rig.core.unit(2).discarded == [" and the rest"]  # type: ignore[union-attr]


def test_every_frame_of_a_unit_restarts_its_stall_wait() -> None:
    rig = greeted()
    rig.open(2, 2)
    for _ in range(3):
        rig.advance(UNIT_STALL_MS - 100)
        rig.chunk(2, "word ")
    assert rig.errors() == []


def test_a_brain_that_never_sends_a_frame_is_reported_on_turn_1() -> None:
    rig = Rig()
    rig.start()
    rig.advance(SILENT_BRAIN_MS)
    assert rig.of(BrainStalled) == [BrainStalled(1, SILENT_BRAIN_MS)]
    assert [(s.turn_id, s.t_ms) for s in rig.core.ledger.stalls] == [(1, SILENT_BRAIN_MS)]


def test_a_brain_that_speaks_at_all_is_not_reported_silent() -> None:
    rig = Rig()
    rig.start()
    rig.brain(pb.RTVIFrame(type=pb.RTVI_TYPE_SERVER_MESSAGE, data="{}"))
    rig.advance(SILENT_BRAIN_MS * 2)
    assert rig.core.ledger.stalls == []


def test_a_chunk_over_the_limit_is_dropped_and_the_unit_goes_on() -> None:
    rig = greeted()
    rig.open(2, 2)
    rig.chunk(2, "x" * (MAX_CHUNK_CHARS + 1))
    rig.chunk(2, "Sorry.")
    rig.end(2)
    rig.advance(1_000)
    (error,) = rig.errors()
    assert error.code == pb.ERROR_CODE_PROTOCOL and "frame dropped" in error.message
    assert rig.finalizes()[-1] == (2, "Sorry.")


def test_a_unit_keeps_at_most_its_limit_and_counts_the_rest() -> None:
    rig = greeted()
    rig.open(2, 2)
    piece = "word " * 10_000
    for _ in range(MAX_UNIT_CHARS // len(piece) + 3):
        rig.chunk(2, piece)
    unit = rig.core.unit(2)
    assert unit is not None and unit.kept_chars <= MAX_UNIT_CHARS
    assert unit.dropped_chars == 3 * len(piece)
    assert [e.code for e in rig.errors()] == [pb.ERROR_CODE_PROTOCOL]  # once, not per chunk


def test_errors_stop_at_the_limit_and_are_counted() -> None:
    rig = greeted()
    rig.say(2, 2, "Done.")
    for _ in range(MAX_ERRORS + 50):
        rig.chunk(2, "after the end")  # each a PROTOCOL error
    assert len(rig.errors()) == len(rig.core.ledger.errors) == MAX_ERRORS
    assert rig.core.ledger.errors_uncounted == 50
    assert "the last error this call records" in rig.errors()[-1].message
    rig.advance(1_000)
    assert rig.core.unit(2).fate is Fate.PLAYED  # type: ignore[union-attr]


def test_a_silent_brain_is_told_as_such() -> None:
    assert stall_words(1, SILENT_BRAIN_MS) == (
        "the brain has sent nothing since the call started 4 s ago (no greeting, no frame at "
        "all); the call goes on"
    )
