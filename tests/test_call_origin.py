"""The core has one time origin, the host's: a call started at 5 s on the host's clock (an
audio engine attached first) behaves exactly as one started at 0, shifted by 5 s. Every
wait counts from what the core was told: the silent-brain notice, the greeting's wait, a
turn's stall, an open unit left silent, the idle nudges."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pytest
from call_rig import Rig

from sandbox.call.core import DEFAULT_STALL_MS, SILENT_BRAIN_MS
from sandbox.call.effects import BrainStalled, CallerIdle, DeadAirEnded, Effect
from sandbox.call.settings import Settings

SHIFT = 5_000


def silent_brain(rig: Rig) -> None:
    """A brain that never sends a frame, and a caller who never speaks."""
    for _ in range(8):
        rig.advance(700)


def conversation(rig: Rig) -> None:
    """A greeting, a turn left unanswered past the stall notice, an answer whose unit sits
    open in dead air before the brain finishes it, then silence long enough for two nudges."""
    rig.advance(300)
    rig.say(1, 1, "Hello there.")
    rig.advance(1_000)
    rig.caller("Book me a table.")
    rig.advance(DEFAULT_STALL_MS + 500)
    rig.open(2, 2)
    rig.chunk(2, "Let me see ")
    rig.advance(5_000)
    rig.chunk(2, "a table for two.")
    rig.end(2)
    rig.advance(5_000)


class Traced(Rig):
    """A rig whose core starts at ``origin``, noting after every step the time and the
    core's next deadline, both counted from the origin."""

    __test__ = False

    def __init__(self, origin: int) -> None:
        super().__init__(settings=Settings(idle_ms=1_500))
        self.now = self.origin = origin
        self.trace: list[tuple[int, int | None]] = []

    def take(self, effects: Iterable[Effect]) -> list[Effect]:
        taken = super().take(effects)
        due = self.core.next_deadline()
        self.trace.append((self.now - self.origin, None if due is None else due - self.origin))
        return taken


def run(scenario: Callable[[Rig], None], origin: int) -> Traced:
    """``scenario`` on a core started at ``origin``."""
    rig = Traced(origin)
    rig.start()
    scenario(rig)
    return rig


@pytest.mark.parametrize("scenario", [silent_brain, conversation])
def test_a_core_started_later_is_the_same_call_shifted(scenario: Callable[[Rig], None]) -> None:
    at_zero, later = run(scenario, 0), run(scenario, SHIFT)
    assert later.effects == at_zero.effects
    assert later.sent == at_zero.sent
    assert later.trace == at_zero.trace
    assert later.core.verdict() == at_zero.core.verdict()
    assert later.of(BrainStalled) and later.of(CallerIdle)  # each reaches a notice and a nudge
    assert bool(later.of(DeadAirEnded)) is (scenario is conversation)


def test_the_silent_brain_notice_counts_from_the_start() -> None:
    """Started at 5 s, a brain that sends nothing is reported 4 s later, having waited 4 s
    (the origin was 0 before: it was reported at once, as waiting 5 s)."""
    rig = Rig()
    rig.now = SHIFT
    rig.start()
    assert rig.core.next_deadline() == SHIFT + 2_000  # the greeting's wait comes first
    rig.advance(SILENT_BRAIN_MS - 1)
    assert rig.of(BrainStalled) == []
    rig.advance(1)
    assert rig.of(BrainStalled) == [BrainStalled(1, SILENT_BRAIN_MS)]
    assert rig.core.verdict().reason.endswith(
        f"in the {SILENT_BRAIN_MS // 1000} s after SessionStart"
    )
