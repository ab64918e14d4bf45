"""Property: for any interleaving of brain frames, barge-ins, cancels and time, every
bracket the core accepted gets exactly one Finalize, in the order units opened, and its
heard text is a verbatim prefix of that unit's own relayed text."""

from __future__ import annotations

from call_rig import Rig
from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox.call.inputs import HangUp, Tick
from sandbox.call.settings import Settings
from sandbox.wire import pb

WORDS = st.sampled_from(["alpha ", "beta", " gamma.", "", "delta epsilon ", "zeta, "])

actions = st.lists(
    st.one_of(
        st.tuples(st.just("open"), st.integers(1, 6), st.integers(0, 4)),
        st.tuples(st.just("chunk"), st.integers(0, 6), WORDS),
        st.tuples(st.just("end"), st.integers(0, 6)),
        st.tuples(st.just("cancel"), st.integers(0, 6)),
        st.tuples(st.just("caller"), st.sampled_from(["hi", "and then", ""])),
        st.tuples(st.just("barge")),
        st.tuples(st.just("hang_up_by_brain")),
        st.tuples(st.just("wait"), st.integers(0, 700)),
    ),
    max_size=40,
)


def play(rig: Rig, action: tuple[object, ...]) -> None:
    """One scripted action against the rig."""
    kind = action[0]
    if kind == "open":
        rig.open(int(action[1]), int(action[2]))  # type: ignore[call-overload]
    elif kind == "chunk":
        rig.chunk(int(action[1]), str(action[2]))  # type: ignore[call-overload]
    elif kind == "end":
        rig.end(int(action[1]))  # type: ignore[call-overload]
    elif kind == "cancel":
        rig.cancel(int(action[1]))  # type: ignore[call-overload]
    elif kind == "caller":
        rig.caller(str(action[1]))
    elif kind == "barge":
        rig.barge_in()
    elif kind == "hang_up_by_brain":
        rig.brain(pb.End())
    else:
        rig.advance(int(action[1]))  # type: ignore[call-overload]


@settings(max_examples=300, deadline=None)
@given(actions, st.booleans())
def test_exactly_one_finalize_per_bracket_in_order_with_a_prefix(
    script: list[tuple[object, ...]], can_cancel: bool
) -> None:
    caps = (pb.CAPABILITY_SPEECH_CANCEL,) if can_cancel else ()
    rig = Rig(ms_per_word=90, capabilities=caps)
    rig.start()
    for action in script:
        play(rig, action)
    rig.advance(60_000)  # let everything that can play, play
    rig.feed(HangUp())  # and everything else is abandoned

    accepted = [u.speech_id for u in rig.core.units]
    fins = rig.finalizes()
    assert [sid for sid, _ in fins] == accepted  # exactly one each, in open order
    for unit, (_, heard) in zip(rig.core.units, fins, strict=True):
        assert unit.generated.startswith(heard)  # a verbatim prefix of its own text
        assert unit.heard == heard
    # the watermark never went down
    marks = rig.interruptions()
    assert marks == sorted(marks) and len(set(marks)) == len(marks)


@settings(max_examples=300, deadline=None)
@given(actions, st.sampled_from([0, 1, 300, 8000]), st.sampled_from([1, 500, 10_000]))
def test_after_a_tick_every_deadline_lies_ahead(
    script: list[tuple[object, ...]], idle_ms: int, stall_ms: int
) -> None:
    """A deadline ``tick`` has passed but ``next_deadline`` still reports would spin the
    host's loop: after every tick, whatever is reported lies strictly ahead."""
    rig = Rig(ms_per_word=90, settings=Settings(idle_ms=idle_ms), stall_ms=stall_ms)
    rig.start()
    for action in [*script, ("wait", 20_000)]:
        play(rig, action)
        rig.feed(Tick())
        deadline = rig.core.next_deadline()
        assert deadline is None or deadline > rig.now


def test_a_brain_that_ends_with_a_bracket_open_ends_the_call_in_bounded_time() -> None:
    """SpeechStart, SpeechChunk, End with no SpeechEnd: what was relayed plays out, the unit
    gets its one Finalize with what was heard, and the call ends."""
    rig = Rig(ms_per_word=100)
    rig.start()
    rig.open(1, 1)
    rig.chunk(1, "Goodbye for now.")
    rig.brain(pb.End())
    assert rig.core.ended is None  # the words already relayed still play
    rig.advance(300)
    assert rig.finalizes() == [(1, "Goodbye for now.")]
    assert rig.core.ended is not None and rig.core.ended.ended_by == "brain"
    rig.brain(pb.SpeechStart(speech_id=2, turn_id=1))  # after the call: ignored
    assert [u.speech_id for u in rig.core.units] == [1]
