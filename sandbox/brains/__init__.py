"""Example brains: ``echo``, ``concierge`` (heard-truth history, a tool hop, TurnSteps)
and ``guardrail`` (takes speech back with SpeechCancel)."""

from sandbox.brains.concierge import Concierge
from sandbox.brains.echo import Echo
from sandbox.brains.guardrail import Guardrail
from sandbox.brains.heard_history import HeardHistory, Reply
from sandbox.brains.registry import BRAINS, make_brain, resolve

__all__ = [
    "BRAINS",
    "Concierge",
    "Echo",
    "Guardrail",
    "HeardHistory",
    "Reply",
    "make_brain",
    "resolve",
]
