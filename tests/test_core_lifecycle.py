"""The call's lifecycle tables (sandbox/call/lifecycle.py): every legal transition leads where
the table says, every other raises, and the core moves by them."""

from __future__ import annotations

import enum
import itertools
from collections.abc import Mapping

import pytest

from sandbox.call.caller_events import BargeIn, CallerSpeaking, DroppedEmpty, OverBot, TurnClose
from sandbox.call.core import CallCore
from sandbox.call.effects import CallState, StateChanged
from sandbox.call.inputs import FromBrain, HangUp, LineGiven, NotPlaced, Start
from sandbox.call.lifecycle import (
    FLOORS,
    HOLDS,
    OPENINGS,
    PHASES,
    Floor,
    FloorEvent,
    Hold,
    HoldEvent,
    IllegalTransition,
    Machine,
    Opening,
    OpeningEvent,
    Phase,
    PhaseEvent,
)
from sandbox.call.settings import Capabilities
from sandbox.wire import pb
from sandbox.wire.codec import envelope

Table = Mapping[tuple[enum.Enum, enum.Enum], enum.Enum]
TABLES: dict[str, tuple[Table, type[enum.Enum], type[enum.Enum]]] = {
    "phase": (PHASES, Phase, PhaseEvent),  # type: ignore[dict-item]
    "opening": (OPENINGS, Opening, OpeningEvent),  # type: ignore[dict-item]
    "floor": (FLOORS, Floor, FloorEvent),  # type: ignore[dict-item]
    "hold": (HOLDS, Hold, HoldEvent),  # type: ignore[dict-item]
}
LEGAL = [(name, *move) for name, (table, _, _) in TABLES.items() for move in table.items()]
ILLEGAL = [
    (name, state, event)
    for name, (table, states, events) in TABLES.items()
    for state, event in itertools.product(states, events)
    if (state, event) not in table
]


@pytest.mark.parametrize(("name", "move", "after"), LEGAL)
def test_every_legal_transition_leads_where_the_table_says(
    name: str, move: tuple[enum.Enum, enum.Enum], after: enum.Enum
) -> None:
    state, event = move
    machine = Machine(TABLES[name][0], state)
    assert machine.fire(event) is after and machine.state is after


@pytest.mark.parametrize(("name", "state", "event"), ILLEGAL)
def test_every_other_transition_raises_and_leaves_the_state(
    name: str, state: enum.Enum, event: enum.Enum
) -> None:
    machine = Machine(TABLES[name][0], state)
    with pytest.raises(IllegalTransition, match=f"{event.name} in {state.name}"):
        machine.fire(event)
    assert machine.state is state


def test_the_tables_name_exactly_what_the_call_forbids() -> None:
    """Spelled out, so a change to a table is a change to this list."""
    assert sorted((n, s.name, e.name) for n, s, e in ILLEGAL) == sorted(
        [
            ("phase", "NEW", "BRAIN_END"),
            ("phase", "LIVE", "START"),
            ("phase", "LIVE", "NOT_PLACED"),
            ("phase", "BRAIN_ENDING", "START"),
            ("phase", "BRAIN_ENDING", "NOT_PLACED"),
            *(("phase", s, e.name) for s in ("ENDED", "NEVER_STARTED") for e in PhaseEvent),
            ("opening", "SILENCE_REPORTED", "SILENCE"),
            ("opening", "HEARD", "SILENCE"),
            ("hold", "PLAYING", "RESUME"),
            ("hold", "HELD", "HOLD"),
        ]
    )
    assert len(FLOORS) == len(Floor) * len(FloorEvent)  # any caller event, in any state


def _core() -> CallCore:
    return CallCore("s", caps=Capabilities(voices={pb.VOICE_JOE: (pb.LANGUAGE_EN,)}))


def _state(core: CallCore) -> CallState:
    return core.state


def test_a_core_refuses_a_second_start_and_a_dial_failure_once_live() -> None:
    core = _core()
    core.handle(Start(), 0)
    with pytest.raises(IllegalTransition):
        core.handle(Start(), 1)
    with pytest.raises(IllegalTransition):
        core.handle(NotPlaced("no route"), 1)


def test_a_call_ended_before_it_started_never_started() -> None:
    core = _core()
    shown = core.handle(HangUp(), 0)  # its End goes out, as ever
    assert core.ended in shown
    assert core.ended is not None and not core.started and core.state is CallState.ENDED
    with pytest.raises(IllegalTransition):
        core.handle(Start(), 1)


def test_cutting_in_lasts_until_the_callers_own_turn_goes_out() -> None:
    """A barge-in that kills the greeting reads as interrupted, and the caller falling quiet
    and speaking again still is, until their turn with text is sent."""
    core = _core()
    core.handle(Start(), 0)
    start = pb.SpeechStart(speech_id=1, turn_id=1)
    core.handle(FromBrain(envelope(start)), 10)
    core.handle(FromBrain(envelope(pb.SpeechChunk(speech_id=1, text="Hello there"))), 20)
    core.handle(OverBot(30, 30), 30)
    assert _state(core) is CallState.PAUSED
    core.handle(BargeIn(40, 40), 40)
    assert _state(core) is CallState.INTERRUPTED
    core.handle(DroppedEmpty(TurnClose.SILENCE), 50)
    assert _state(core) is CallState.LISTENING
    shown = core.handle(CallerSpeaking(60), 60)
    assert StateChanged(CallState.INTERRUPTED) in shown
    core.handle(LineGiven(" "), 70)  # no text: not their turn yet
    assert StateChanged(CallState.INTERRUPTED) in core.handle(CallerSpeaking(80), 80)
    core.handle(LineGiven("Sorry, go on"), 90)
    assert core.handle(CallerSpeaking(100), 100)[-1] == StateChanged(CallState.CALLER_SPEAKING)
