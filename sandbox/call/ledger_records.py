"""What the core records of a call beside its units and turns: each error either side
reported, each TurnStep, each stall, each stretch of dead air and each backchannel. The core
makes them; the :class:`~sandbox.call.ledger.Ledger` keeps them; the store keeps them as
events.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sandbox.wire import pb
from sandbox.wire.direction import Direction


@dataclass(frozen=True)
class WireErrorRecord:
    """One error either side reported, for the call's record."""

    t_ms: int
    dir: Direction  # "out": Voqalize told the brain; "in": the brain told Voqalize
    code: str
    message: str
    fatal: bool


@dataclass(frozen=True)
class StepRecord:
    """One TurnStep, recorded beside its turn. Counts left out stay absent, not zero."""

    t_ms: int
    turn_id: int
    kind: str
    #: The step's own bytes: a call keeps every step to its end, and these take ~0.1 KB
    #: where its fields as a dict take ~1.1 KB.
    raw: bytes
    known_turn: bool = True  # False: it named a turn this session never minted

    @property
    def step(self) -> dict[str, Any]:
        """The step's fields as plain values (see :func:`step_fields`)."""
        return step_fields(pb.TurnStep.FromString(self.raw))


@dataclass(frozen=True)
class StallRecord:
    """The user was told the brain had not answered ``turn_id`` after ``waited_ms``."""

    t_ms: int
    turn_id: int
    waited_ms: int


@dataclass(frozen=True)
class DeadAirRecord:
    """Dead air mid-unit: unit ``speech_id`` of turn ``turn_id`` was open and nothing
    played, nor came from the brain for it, from ``t_ms`` for ``silent_ms``."""

    t_ms: int
    turn_id: int
    speech_id: int
    silent_ms: int


@dataclass(frozen=True)
class BackchannelRecord:
    """A backchannel over the bot ("uh huh"): never a turn, but part of the conversation.
    ``resumed``: the bot paused for it, then went on."""

    t_ms: int
    text: str
    resumed: bool = False


def step_fields(step: pb.TurnStep) -> dict[str, Any]:
    """A TurnStep as plain values: numbers stay numbers, a zero start is kept (it means the
    start), and a field with presence that was not sent stays absent, as do counts not
    reported ("absent is not zero")."""
    out: dict[str, Any] = {}
    for desc in step.DESCRIPTOR.fields:
        if desc.has_presence and not step.HasField(desc.name):
            continue
        value = getattr(step, desc.name)
        out[desc.name] = dict(value) if desc.message_type is not None else value
    return out
