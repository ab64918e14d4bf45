"""The tool-waits brain: a filler while a tool runs, then the answer, on the same turn.

Each turn it speaks a short filler unit ("One moment, let me look that up."), closes it,
waits for a "tool" on the wall clock (0.3 to 2 s, the same for the same words, so a
re-drive meets the same waits), reports the wait as a TurnStep where Voqalize records
them, and answers in a second unit. The wire has no frame saying a turn is done, so this
is the brain a re-drive's warp clock must not outrun (see ``sandbox/host/warp.py``).
Serve it with ``sandbox brain sandbox/brains/tool_waits.py``.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator

from sandbox.sdk import (
    Brain,
    Session,
    Speech,
    SpeechChunk,
    SpeechEnd,
    SpeechStart,
    TurnStep,
    UserMessage,
)

GREETING = "Hello, this is the lookup line. Ask me anything and I will look it up."
FILLER = "One moment, let me look that up."
#: The shortest and longest tool wait, in seconds.
WAIT_RANGE_S = (0.3, 2.0)


def tool_wait_s(text: str) -> float:
    """The tool's wait for a caller's words: in :data:`WAIT_RANGE_S`, the same each time."""
    low, high = WAIT_RANGE_S
    return round(low + (zlib.crc32(text.encode()) % 1000) / 999 * (high - low), 3)


class ToolWaits(Brain):
    """See the module doc. ``wait_s`` fixes every tool wait (None: by the caller's words)."""

    def __init__(self, wait_s: float | None = None) -> None:
        self.wait_s = wait_s

    async def greet(self, session: Session) -> str:
        return GREETING

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        yield SpeechStart()
        yield SpeechChunk(FILLER)
        yield SpeechEnd()
        wait_s = tool_wait_s(msg.text) if self.wait_s is None else self.wait_s
        await asyncio.sleep(wait_s)
        if session.can_report_steps:
            session.report_step(TurnStep("tool", "lookup", duration_ms=round(wait_s * 1000)))
        yield SpeechStart()
        yield SpeechChunk(f"I looked up {msg.text.rstrip('?.!')}. ")
        yield SpeechChunk(f"The lookup took {wait_s:.1f} seconds, and that is all I found.")
        yield SpeechEnd()
