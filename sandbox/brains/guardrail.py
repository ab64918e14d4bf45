"""The guardrail brain: a guardrail beside the model takes back speech already sent.

Its drafting "model" answers account questions, and for card questions its draft
reads the card number aloud. A guardrail checks the text as it streams; once a run of
digits has gone out it stops the model and, where Voqalize honours SpeechCancel,
cancels the unit mid-stream (``await session.cancel_speech(start.speech_id)``) and
goes on, on the same turn, with a new unit. Without the capability it can only stop
talking and say the same apology after the unit has played. History is heard-truth,
so it records exactly how much of the number the caller may have heard.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing

from sandbox.brains.heard_history import Entry, HeardHistory
from sandbox.sdk import Brain, Finalize, Session, Speech, UserMessage

GREETING = "Hello, this is the account line. Ask me about your balance or your card."
APOLOGY = (
    "Sorry, I can't read card details over the phone. I've locked that answer for your safety."
)
#: Four or more digits, spaced or not: a card or account number going out.
FLAGGED = re.compile(r"(?:\d[\s-]?){4,}")

_DRAFTS = {
    "card": "Sure. Your card number is 4 4 1 2 5 5 6 7 and it expires in May.",
    "balance": "Your balance is two hundred and forty dollars. Anything else?",
}
_DEFAULT = "I can tell you your balance or help with your card. Which would you like?"


class Guardrail(Brain):
    """See the module doc. ``history`` is heard-truth; ``cuts`` are the cancels' Finalizes."""

    def __init__(self, piece_delay_s: float = 0.015) -> None:
        self.piece_delay_s = piece_delay_s
        self._heard = HeardHistory()
        self.cuts: list[Finalize] = []

    @property
    def history(self) -> list[Entry]:
        """The conversation as the caller heard it."""
        return self._heard.entries

    async def greet(self, session: Session) -> str:
        return GREETING

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        self._heard.user(msg.text)
        reply = self._heard.reply()
        flagged = False
        async with aclosing(self._draft(msg.text)) as pieces:
            async for piece in pieces:
                for item in reply.say(piece):
                    yield item
                if FLAGGED.search(reply.text):
                    flagged = True
                    break  # stop the model: closing the draft stream
        if not flagged:
            for item in reply.end():
                yield item
            return
        if session.can_cancel_speech and reply.start is not None:
            self.cuts.append(await session.cancel_speech(reply.start.speech_id))
        else:  # cannot take it back: finish this unit; the apology follows it
            for item in reply.end():
                yield item
        apology = self._heard.reply()
        for item in [*apology.say(APOLOGY), *apology.end()]:
            yield item

    async def on_finalize(self, session: Session, fin: Finalize) -> None:
        self._heard.on_finalize(fin)

    async def _draft(self, said: str) -> AsyncGenerator[str, None]:
        words = said.lower()
        text = next((draft for key, draft in _DRAFTS.items() if key in words), _DEFAULT)
        for piece in re.findall(r"\S+\s*", text):
            await asyncio.sleep(self.piece_delay_s)
            yield piece
