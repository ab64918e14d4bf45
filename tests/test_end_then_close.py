"""A brain that sends End and closes its socket at once: the close is the one its End began.

Driven with a fake clock and simulated playout: the call ends as the brain's End (not as a
brain that failed), what it relayed plays out whole, and nothing is sent on the closed
socket, while every unit still gets its one Finalize in the record, marked undelivered.
"""

from __future__ import annotations

from call_rig import Rig

from sandbox.call.effects import CallEnded, EndedBy
from sandbox.call.inputs import BrainClosed, HangUp
from sandbox.call.turn_records import FinalizeSent
from sandbox.wire import pb


def goodbye_said(caller_line: str) -> Rig:
    """A call greeted and heard through, the caller's ``caller_line``, and the brain's
    goodbye in play."""
    rig = Rig()
    rig.start()
    rig.say(1, 1, "Hello there.")
    rig.advance(1000)
    rig.caller(caller_line)
    rig.say(2, 2, "Goodbye, take care.")
    return rig


def goodbye_then_close(*, close: bool = True) -> Rig:
    """A call in which the caller spoke, and the brain said goodbye, ended and (``close``)
    closed its socket at once."""
    rig = goodbye_said("that is all, thanks")
    rig.brain(pb.End())
    if close:
        rig.feed(BrainClosed("the brain closed the connection"))
    return rig


def test_the_close_after_end_lets_the_goodbye_play_out_and_ends_as_the_brains() -> None:
    rig = goodbye_then_close()
    assert rig.core.ended is None  # the goodbye is still playing
    sent_before = len(rig.sent)
    rig.advance(2000)
    ended = rig.core.ended
    assert ended is not None and ended.ended_by is EndedBy.BRAIN
    kept_open = goodbye_then_close(close=False)
    kept_open.advance(2000)
    assert rig.core.verdict() == kept_open.core.verdict()  # the outcome the call had
    assert ended == kept_open.core.ended
    unit = rig.core.unit(2)
    assert unit is not None and unit.heard == "Goodbye, take care."
    assert len(rig.sent) == sent_before  # nothing went out on the closed socket
    assert rig.finalizes() == [(1, "Hello there.")]
    assert rig.of(FinalizeSent) == [FinalizeSent(1), FinalizeSent(2, delivered=False)]
    assert len(rig.of(CallEnded)) == 1


def test_a_second_close_report_changes_nothing() -> None:
    rig = goodbye_then_close()
    rig.feed(BrainClosed("sending failed"))  # the host's send meeting the closed socket
    rig.advance(2000)
    ended = rig.core.ended
    assert ended is not None and ended.ended_by is EndedBy.BRAIN


def test_the_caller_hanging_up_over_the_goodbye_still_sends_nothing() -> None:
    rig = goodbye_then_close()
    rig.advance(100)
    sent_before = len(rig.sent)
    rig.feed(HangUp())
    ended = rig.core.ended
    assert ended is not None and ended.ended_by is EndedBy.CALLER
    assert len(rig.sent) == sent_before
    unit = rig.core.unit(2)
    assert unit is not None and unit.heard != "Goodbye, take care."
    assert rig.of(FinalizeSent)[-1] == FinalizeSent(2, delivered=False)


def test_a_close_without_end_is_still_the_brain_failing() -> None:
    rig = goodbye_said("hi")
    rig.feed(BrainClosed("connection lost"))
    ended = rig.core.ended
    assert ended is not None and ended.ended_by is EndedBy.BRAIN_CLOSED
    assert rig.finalizes()[-1][0] == 2  # cut: its Finalize goes out on what is left
