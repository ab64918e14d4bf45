"""The echo brain: greets, then says back whatever the caller said; a caller who stays
silent is nudged, then told goodbye, and the call ended (:mod:`sandbox.brains.idle_escalation`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from sandbox.brains.idle_escalation import LettingGo
from sandbox.sdk import (
    Brain,
    Finalize,
    Session,
    Speech,
    SpeechChunk,
    SpeechEnd,
    SpeechStart,
    UserIdle,
    UserMessage,
)

GREETING = "Hi! I'm the echo brain. Say anything and I'll say it back."
NUDGE = "I'm still here. Say something and I'll repeat it."
GOODBYE = "Nobody seems to be there, so I'll hang up. Goodbye!"


class Echo(Brain):
    """The smallest useful brain: one unit per turn."""

    def __init__(self) -> None:
        self._letting_go = LettingGo()

    async def greet(self, session: Session) -> str:
        return GREETING

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        yield SpeechStart()
        yield SpeechChunk(f"You said: {msg.text}")
        yield SpeechEnd()

    async def on_user_idle(self, session: Session, idle: UserIdle) -> AsyncIterator[Speech]:
        yield SpeechStart()
        yield SpeechChunk(GOODBYE if self._letting_go.idle(idle.level) else NUDGE)
        yield SpeechEnd()

    async def on_finalize(self, session: Session, fin: Finalize) -> None:
        self._letting_go.finalized(session, fin)
