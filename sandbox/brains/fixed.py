"""The fixed-reply brain: every turn gets the same two sentences, streamed word by word at once.

The bench's brain for timing the runtime rather than a model: the peer's fixed "LLM" says
the same words the same way (all its tokens at once). It does not greet, like the peer.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable

from sandbox.sdk import Brain, Session, Speech, SpeechChunk, SpeechEnd, SpeechStart, UserMessage

#: The peer's fixed reply (its ``pipecat_bench.py``, outside this repository), word for word.
REPLY = (
    "Sure, I can help you with that right away. "
    "Let me pull up your order details and check the latest delivery status for you."
)


class FixedReply(Brain):
    """Answers every caller turn with :data:`REPLY`. ``notify`` hears ("session_start", "")
    when the call begins and ("user_message", its text) as each turn arrives: the bench
    times them."""

    def __init__(self, notify: Callable[[str, str], None] | None = None) -> None:
        self._notify = notify or (lambda _kind, _text: None)

    async def on_session_start(self, session: Session) -> None:
        self._notify("session_start", "")

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        self._notify("user_message", msg.text)
        yield SpeechStart()
        for token in re.findall(r"\S+\s*", REPLY):
            yield SpeechChunk(token)
        yield SpeechEnd()
