"""The echo brain: greets, then says back whatever the caller said."""

from __future__ import annotations

from collections.abc import AsyncIterator

from sandbox.sdk import (
    Brain,
    Session,
    Speech,
    SpeechChunk,
    SpeechEnd,
    SpeechStart,
    UserIdle,
    UserMessage,
)

GREETING = "Hi! I'm the echo brain. Say anything and I'll say it back."


class Echo(Brain):
    """The smallest useful brain: one unit per turn."""

    async def greet(self, session: Session) -> str:
        return GREETING

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        yield SpeechStart()
        yield SpeechChunk(f"You said: {msg.text}")
        yield SpeechEnd()

    async def on_user_idle(self, session: Session, idle: UserIdle) -> AsyncIterator[Speech]:
        yield SpeechStart()
        yield SpeechChunk("I'm still here. Say something and I'll repeat it.")
        yield SpeechEnd()
