"""The brain SDK: the brain's side of the Voqalize wire, with the bookkeeping removed.

A brain implements callbacks and yields speech; nothing in its surface names a turn::

    from sandbox.sdk import Brain, SpeechChunk, SpeechEnd, SpeechStart

    class Greeter(Brain):
        async def greet(self, session):
            return "Hi! How can I help?"

        async def on_user_message(self, session, msg):
            yield SpeechStart()
            yield SpeechChunk(f"You said: {msg.text}")
            yield SpeechEnd()

Serve it with :func:`serve` (or ``sandbox brain module:Greeter``), or host it in
process with :class:`BrainConnection`.

This package loads only the wire: importing it, even ``from sandbox.sdk import *``, starts no
runtime, and it imports nothing of the app's. ``VoqalizeDriver`` (and ``DriverError``,
``HeardUnit``), which run the sandbox's real call core around a brain in a test, are the
app's: ``from sandbox.harness import VoqalizeDriver``. Asked for here, one says where it is.
"""

from typing import Any

from sandbox.sdk.actions import Action, ui_command
from sandbox.sdk.brain import Brain
from sandbox.sdk.config import Config, IdleConfig, SttConfig, TtsConfig
from sandbox.sdk.connection import BrainConnection
from sandbox.sdk.errors import (
    CapabilityMissing,
    ConfigError,
    RequestRejected,
    SdkError,
    SessionClosed,
)
from sandbox.sdk.events import Error, Finalize, RTVIFrame, UserIdle, UserMessage
from sandbox.sdk.server import BrainServer, serve
from sandbox.sdk.session import Session
from sandbox.sdk.speech import Chunk, Speech, SpeechChunk, SpeechEnd, SpeechStart
from sandbox.sdk.steps import TurnStep

__all__ = [
    "Action",
    "Brain",
    "BrainConnection",
    "BrainServer",
    "CapabilityMissing",
    "Chunk",
    "Config",
    "ConfigError",
    "Error",
    "Finalize",
    "IdleConfig",
    "RTVIFrame",
    "RequestRejected",
    "SdkError",
    "Session",
    "SessionClosed",
    "Speech",
    "SpeechChunk",
    "SpeechEnd",
    "SpeechStart",
    "SttConfig",
    "TtsConfig",
    "TurnStep",
    "UserIdle",
    "UserMessage",
    "serve",
    "ui_command",
]

#: The test driver's names, which are the app's (:mod:`sandbox.harness`), not the SDK's.
_HARNESS = frozenset({"DriverError", "HeardUnit", "VoqalizeDriver"})


def __getattr__(name: str) -> Any:
    """Asked for one of the test driver's names, say where it lives (the SDK imports
    nothing of the app's, so a brain deploys with the SDK alone)."""
    if name in _HARNESS:
        raise ImportError(
            f"{name} is the sandbox's test driver, not the SDK's: "
            f"from sandbox.harness import {name} (it runs the sandbox's call core: install "
            "voqalize-sandbox, pip install '.[test]' from its clone, where you test the brain)"
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
