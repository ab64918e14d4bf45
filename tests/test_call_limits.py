"""The call core's answers to a misbehaving brain, on a fake clock: an open unit left
silent (dead air, shown and recorded, never closed), a brain that never speaks, the chunk,
unit and error limits."""

from __future__ import annotations

from call_rig import Rig

from sandbox.call.core import DEAD_AIR_MS, MAX_ERRORS, SILENT_BRAIN_MS
from sandbox.call.effects import BrainStalled, CallEnded, CallState, DeadAir, DeadAirEnded
from sandbox.call.inputs import HangUp, Tick
from sandbox.call.played import WordPlayed
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


def test_an_open_unit_stays_open_however_long_the_brain_thinks() -> None:
    """001: "Every SpeechStart is closed by a SpeechEnd or a SpeechCancel" — brackets are
    the brain's, and "awaiting between yields is how a tool call sits between two things the
    brain says". The runtime closes nothing, sends no Error, and the caller hears it whole;
    the dead air is shown and recorded."""
    rig = greeted()
    rig.open(2, 2)
    rig.chunk(2, "Let me check that for you. ")
    rig.advance(60_000)  # a slow tool
    unit = rig.core.unit(2)
    assert unit is not None and unit.bracket is Bracket.OPEN and unit.fate is None
    assert rig.errors() == [] and rig.finalizes()[-1][0] == 1
    rig.chunk(2, "Your order ships tomorrow.")
    rig.end(2)
    rig.advance(2_000)
    assert rig.finalizes()[-1] == (2, "Let me check that for you. Your order ships tomorrow.")
    assert rig.errors() == [] and rig.core.state is CallState.LISTENING
    # Dead air from the last word played (6 words, 100 ms each) to the next chunk.
    last_word = 1_000 + 5 * 100
    (gap,) = rig.core.ledger.dead_air
    assert (gap.turn_id, gap.speech_id, gap.t_ms) == (2, 2, last_word)
    assert gap.silent_ms == 1_000 + 60_000 - last_word
    assert rig.of(DeadAir) == [DeadAir(2, 2, DEAD_AIR_MS)]
    assert rig.of(DeadAirEnded) == [DeadAirEnded(2, 2, gap.silent_ms)]


def test_dead_air_is_shown_once_it_has_lasted_and_not_before() -> None:
    rig = greeted()
    rig.open(2, 2)  # a model slow to its first token: nothing to hear yet
    rig.advance(DEAD_AIR_MS - 1)
    assert rig.core.dead_air_at(rig.now) is None and rig.of(DeadAir) == []
    rig.advance(1)
    assert rig.core.dead_air_at(rig.now) == DeadAir(2, 2, DEAD_AIR_MS)
    rig.advance(4_000)
    assert rig.of(DeadAir) == [DeadAir(2, 2, DEAD_AIR_MS)]  # shown once; the screen counts on
    assert rig.core.dead_air_at(rig.now) == DeadAir(2, 2, 5_000)
    assert rig.core.ledger.dead_air == []  # recorded when it ends, with its length
    rig.chunk(2, "Here it is.")
    assert [(g.t_ms, g.silent_ms) for g in rig.core.ledger.dead_air] == [(1_000, 5_000)]
    assert rig.core.dead_air_at(rig.now) is None


def test_a_word_played_late_ends_the_dead_air_as_it_plays() -> None:
    """A slow synthesizer: the text came, no word played for DEAD_AIR_MS, so dead air is
    shown; the first word ends it as it plays, with no tick after it (the host asks the
    timers only when one is due)."""
    rig = greeted()
    rig.open(2, 2)
    rig.chunk(2, "Let me see. ")  # queued for playout; nothing plays it here
    rig.now += DEAD_AIR_MS
    rig.feed(Tick())
    assert rig.of(DeadAir) == [DeadAir(2, 2, DEAD_AIR_MS)]
    rig.now += 500
    played = rig.feed(WordPlayed(2, "Let"))
    assert DeadAirEnded(2, 2, DEAD_AIR_MS + 500) in played


def test_a_brain_streaming_steadily_makes_no_dead_air() -> None:
    rig = greeted()
    rig.open(2, 2)
    for _ in range(10):
        rig.advance(DEAD_AIR_MS - 100)
        rig.chunk(2, "word ")
    rig.end(2)
    rig.advance(5_000)
    assert rig.of(DeadAir) == [] and rig.core.ledger.dead_air == [] and rig.errors() == []


def test_dead_air_waits_for_the_audio_already_sent_to_play_out() -> None:
    """Text already relayed keeps the line busy: the brain may think while it plays."""
    rig = greeted()
    rig.open(2, 2)
    rig.chunk(2, " ".join(["word"] * 30))  # 3 s of speech at 100 ms a word
    rig.advance(3_500)
    assert rig.of(DeadAir) == []
    rig.chunk(2, "More.")
    rig.end(2)
    rig.advance(1_000)
    assert rig.core.ledger.dead_air == []


def test_dead_air_ends_at_a_barge_in_and_at_the_end_of_the_call() -> None:
    rig = greeted()
    rig.open(2, 2)
    rig.chunk(2, "One moment. ")
    rig.advance(5_000)
    rig.caller("Hello, are you still there?")  # the caller speaks into the dead air
    assert rig.interruptions() == [2] and rig.finalizes()[-1] == (2, "One moment.")
    assert [(g.speech_id, g.silent_ms) for g in rig.core.ledger.dead_air] == [(2, 4_900)]
    rig.open(3, 3)
    rig.advance(3_000)
    rig.feed(HangUp())
    assert [(g.speech_id, g.silent_ms) for g in rig.core.ledger.dead_air][-1] == (3, 3_000)
    ended = [e for e in rig.effects if isinstance(e, DeadAirEnded | CallEnded)]
    assert isinstance(ended[-1], CallEnded)  # the gap is closed before the call's end


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
