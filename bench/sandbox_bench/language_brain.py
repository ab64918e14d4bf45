"""The brain of ``sandbox bench --languages``: answers in the call's language.

The built-in brains answer in English; this one is given a language's two replies
(:mod:`sandbox_bench.language_set`): the short one to every turn while the bench times
turns (so the next turn comes soon), the long one once the bench says the floor's trials
begin (a reply to speak over). Streamed word by word at once, as the fixed-reply brain's.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from sandbox.sdk import Brain, Session, Speech, SpeechChunk, SpeechEnd, SpeechStart, UserMessage


@dataclass
class Replies:
    """A language's replies, and which one is due (``long`` once the floor's trials begin)."""

    short: str
    long_reply: str
    long: bool = False

    def to_long(self) -> None:
        """From now on, the long reply (the floor's trials begin)."""
        self.long = True

    @property
    def due(self) -> str:
        """The reply the next turn gets."""
        return self.long_reply if self.long else self.short


class LanguageReply(Brain):
    """Answers every caller turn with ``replies.due``; ``notify`` hears ("session_start", "")
    and ("user_message", its text) as :class:`~sandbox.brains.fixed.FixedReply`'s does."""

    def __init__(self, replies: Replies, notify: Callable[[str, str], None]) -> None:
        self._replies = replies
        self._notify = notify

    async def on_session_start(self, session: Session) -> None:
        self._notify("session_start", "")

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        self._notify("user_message", msg.text)
        yield SpeechStart()
        for token in re.findall(r"\S+\s*", self._replies.due):
            yield SpeechChunk(token)
        yield SpeechEnd()
