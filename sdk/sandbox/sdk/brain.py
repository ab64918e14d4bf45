"""The Brain base class: override the callbacks you need; the rest do nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator

from sandbox.sdk.events import Error, Finalize, RTVIFrame, UserIdle, UserMessage
from sandbox.sdk.session import Session
from sandbox.sdk.speech import Speech


class Brain:
    """What a brain decides: what it says and what it shows.

    The speaking callbacks (``on_user_message``, ``on_user_idle``) are async generators
    and the generator is the mouth: they may yield only ``SpeechStart()``,
    ``SpeechChunk(text)`` and ``SpeechEnd()``. Awaiting between yields is how a tool
    call sits between two things the brain says. Everything else is a method on the
    session. Nothing here names a turn: the SDK answers the turn that started the callback.

    Frames are dispatched one at a time, so keep the non-speaking callbacks short;
    a speaking callback runs as its own task beside them and is stopped (``aclose``,
    so its ``finally`` runs) when the caller talks over its turn.
    """

    async def greet(self, session: Session) -> str | None:
        """The opening line, spoken as one unit on turn 1 before anything else; None for none.

        A static string: nothing should wait on a model on the one turn with no retry.
        Its Finalize reaches ``on_finalize`` like any other, with nothing of yours awaiting it.
        """
        return None

    async def on_session_start(self, session: Session) -> None:
        """The session began (called right after the greeting was queued)."""

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        """The caller finished an utterance: yield the reply."""
        return
        yield  # an async generator that says nothing

    async def on_user_idle(self, session: Session, idle: UserIdle) -> AsyncIterator[Speech]:
        """The caller has been silent past the idle timeout: yield a nudge, or nothing."""
        return
        yield  # an async generator that says nothing

    async def on_rtvi(self, session: Session, frame: RTVIFrame) -> None:
        """The app sent an RTVI message. It never takes the floor: answer on the RTVI plane."""

    async def on_finalize(self, session: Session, fin: Finalize) -> None:
        """What the caller heard of one unit: once per unit, in opening order, after playout."""

    async def on_error(self, session: Session, err: Error) -> None:
        """Something went wrong (the SDK has logged it). ``err.fatal``: the session is ending."""
