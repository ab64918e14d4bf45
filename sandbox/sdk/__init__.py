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
runtime. ``VoqalizeDriver`` (and ``DriverError``, ``HeardUnit``), which run the sandbox's real
call core around a brain, live in :mod:`sandbox.harness`: ``from sandbox.sdk import
VoqalizeDriver`` loads them on first use, and they stay out of ``__all__`` so that ``import *``
never pulls in the host, audio and call core. With the ``voqalize-sdk`` distribution alone
(``sdk/``, what a brain deploys with) they are not there, and asking for one says so.
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

#: Names served by :mod:`sandbox.harness`, imported on first use so the SDK stays light.
_HARNESS = frozenset({"DriverError", "HeardUnit", "VoqalizeDriver"})


def __getattr__(name: str) -> Any:
    """The harness's names, imported when first asked for (see the module docstring)."""
    if name in _HARNESS:
        try:
            import sandbox.harness
        except ModuleNotFoundError as missing:
            # voqalize-sdk alone: the call core is the app's (voqalize-sandbox).
            raise ImportError(
                f"{name} runs the sandbox's call core, which voqalize-sdk alone does not "
                "have: install voqalize-sandbox (pip install '.[test]' from its clone) "
                "where you test the brain"
            ) from missing
        return getattr(sandbox.harness, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
