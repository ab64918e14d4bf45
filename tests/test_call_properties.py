"""Property: for any interleaving of brain frames, barge-ins, cancels and time, every
bracket the core accepted gets exactly one Finalize, in the order units opened, and its
heard text is a verbatim prefix of that unit's own relayed text."""

from __future__ import annotations

from call_rig import Rig
from hypothesis import given, settings
from hypothesis import strategies as st

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
        st.tuples(st.just("wait"), st.integers(0, 700)),
    ),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(actions, st.booleans())
def test_exactly_one_finalize_per_bracket_in_order_with_a_prefix(
    script: list[tuple[object, ...]], can_cancel: bool
) -> None:
    caps = (pb.CAPABILITY_SPEECH_CANCEL,) if can_cancel else ()
    rig = Rig(ms_per_word=90, capabilities=caps)
    rig.start()
    for action in script:
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
        else:
            rig.advance(int(action[1]))  # type: ignore[call-overload]
    rig.advance(60_000)  # let everything that can play, play
    rig.take(rig.core.hang_up(rig.now))  # and everything else is abandoned

    accepted = [u.speech_id for u in rig.core.units]
    fins = rig.finalizes()
    assert [sid for sid, _ in fins] == accepted  # exactly one each, in open order
    for unit, (_, heard) in zip(rig.core.units, fins, strict=True):
        assert unit.generated.startswith(heard)  # a verbatim prefix of its own text
        assert unit.heard == heard
    # the watermark never went down
    marks = rig.interruptions()
    assert marks == sorted(marks) and len(set(marks)) == len(marks)
