"""UserIdle: silence after the bot stops, escalating levels, reset on speech, 0 disables."""

from __future__ import annotations

from call_rig import Rig

from sandbox.call.caller_events import CallerSpeaking, DroppedEmpty, TurnClose
from sandbox.call.effects import BrainStalled
from sandbox.call.settings import Settings
from sandbox.wire import pb


def idles(rig: Rig) -> list[tuple[int, int, int]]:
    return [
        (e.user_idle.turn_id, e.user_idle.level, e.user_idle.idle_ms)
        for e in rig.sent
        if e.HasField("user_idle")
    ]


def greeted(idle_ms: int) -> Rig:
    rig = Rig(settings=Settings(idle_ms=idle_ms))
    rig.start()
    rig.say(1, 1, "Hello.")  # plays 0..100 ms
    rig.advance(100)
    return rig


def test_idle_fires_after_the_bot_stops_and_escalates() -> None:
    rig = greeted(3000)
    rig.advance(2999)
    assert idles(rig) == []
    rig.advance(1)
    assert idles(rig) == [(2, 1, 3000)]
    rig.say(2, 2, "Still there?")  # the brain's nudge plays 200 ms
    rig.advance(200 + 2999)
    assert len(idles(rig)) == 1  # the wait counts from when the nudge stopped playing
    rig.advance(1)
    assert idles(rig)[-1] == (3, 2, 3000)  # no caller speech in between: it escalates


def test_no_idle_turn_while_an_answer_is_owed() -> None:
    """The wire contract: timeout_ms is the silence after Voqalize stops speaking. A brain
    slower than the idle timeout is not talked over by a nudge for a turn it has not answered
    yet."""
    rig = greeted(800)
    rig.caller("Book me a table.")  # turn 2
    rig.advance(1500)  # the brain thinks for 1.5 s
    assert idles(rig) == []
    rig.say(2, 2, "Done, see you tonight.")  # four words: 400 ms
    rig.advance(400 + 799)
    assert idles(rig) == []
    rig.advance(1)
    assert idles(rig) == [(3, 1, 800)]
    arms = rig.arms()
    assert arms.index("user_idle") > arms.index("finalize", arms.index("user_message"))


def test_a_brain_that_never_answers_is_reported_stalled_then_nudged() -> None:
    """The default idle (8 s) is shorter than the stall notice (10 s): an owed answer holds
    idle off, so the stall is reported, and only then does the wait count. ``idle_ms`` is
    the silence elapsed (docs/wire.md): the caller has been silent since "Hello?", 18 s."""
    rig = Rig(settings=Settings())  # default idle, default stall
    rig.start()
    rig.say(1, 1, "Hello.")
    rig.advance(100)
    rig.caller("Hello?")
    rig.advance(9_999)
    assert idles(rig) == [] and rig.of(BrainStalled) == []
    rig.advance(1)
    assert rig.of(BrainStalled) == [BrainStalled(turn_id=2, waited_ms=10_000)]
    rig.advance(8_000)
    assert idles(rig) == [(3, 1, 18_000)]


def test_level_resets_when_the_caller_speaks() -> None:
    rig = greeted(1000)
    rig.advance(1000)
    rig.say(2, 2, "Still there?")  # two words: 200 ms
    rig.advance(200)
    rig.advance(1000)
    assert [lvl for _, lvl, _ in idles(rig)] == [1, 2]
    rig.caller("yes")
    rig.say(3, 4, "Great.")
    rig.advance(100 + 1000)
    assert idles(rig)[-1][1] == 1


def test_no_idle_while_the_bot_speaks_or_the_caller_talks() -> None:
    rig = greeted(500)
    rig.feed(CallerSpeaking(rig.now))
    rig.advance(5000)
    assert idles(rig) == []
    rig.feed(DroppedEmpty(TurnClose.SILENCE))
    rig.advance(500)
    assert len(idles(rig)) == 1


def test_zero_disables_idle_detection() -> None:
    rig = greeted(0)
    rig.advance(60_000)
    assert idles(rig) == []


def test_a_running_timer_restarts_on_the_new_duration() -> None:
    rig = greeted(3000)
    rig.advance(2000)
    rig.brain(pb.Request(request_id=1, configure=pb.Config(idle=pb.IdleConfig(timeout_ms=2000))))
    rig.advance(1999)
    assert idles(rig) == []
    rig.advance(1)
    assert idles(rig) == [(2, 1, 4000)]  # idle_ms is the whole silence


def test_unset_idle_section_leaves_the_timer_alone() -> None:
    rig = greeted(1000)
    rig.brain(pb.Request(request_id=1, configure=pb.Config(stt=pb.SttConfig(patience=5))))
    rig.advance(1000)
    assert len(idles(rig)) == 1
