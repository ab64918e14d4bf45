"""A deterministic, rule-based stand-in for a language model, streamed like one.

It answers from a handful of rules instead of a network model, but it behaves like
one where the SDK can tell: replies arrive as small token-sized pieces with a tiny
await between them (the first piece is empty, like a stream's opening delta), some
requests answer with a tool call instead of text, and every request reports the
tokens it read and wrote.
"""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass

from sandbox.brains.heard_history import Entry
from sandbox.brains.idle_escalation import NUDGE_LEVELS, says_goodbye

_TOKEN = re.compile(r"\w+|[^\w\s]")
_PIECE = re.compile(r"\S+\s*")

#: What the rules say about the business; the instructions a real model would read.
SYSTEM_PROMPT = (
    "You are the receptionist of Harbour Street Studio, a yoga studio. Answer briefly. "
    "Call show_section to put pricing or opening hours on the caller's screen."
)

_SECTIONS = {
    "pricing": (
        "I've put our prices on your screen. A single class is fifteen dollars, and a "
        "monthly pass is ninety. Your first class is free, so you can try us out first. "
        "Would you like to book one?"
    ),
    "hours": (
        "Our opening hours are on your screen now. We're open seven to eight on weekdays, "
        "and nine to four at the weekend. The busiest classes are the early evening ones, "
        "so book those a day ahead."
    ),
}
_DIRECTIONS = (
    "We're at 12 Harbour Street, next to the ferry terminal. There's parking behind the "
    "building, and the number five bus stops right outside."
)
_HELLO = "Hello again! I can help with our prices, our opening hours, or how to find us."
_BYE = "You're welcome. Have a lovely day, and see you on the mat!"
_FALLBACK = (
    "Sorry, I'm not sure I can help with that. I can tell you about our prices, our "
    "opening hours, or how to find us. Which would you like?"
)
_NUDGES = ("Are you still there?", "No rush. I'm here whenever you're ready.")
assert len(_NUDGES) == NUDGE_LEVELS  # one nudge for each level before the goodbye
_IDLE_GOODBYE = "I'll let you go now. Thanks for calling Harbour Street Studio. Goodbye!"


def count_tokens(text: str) -> int:
    """Tokens as this model counts them: words and punctuation marks."""
    return len(_TOKEN.findall(text))


#: The system prompt's tokens, counted once rather than for every request.
_SYSTEM_TOKENS = count_tokens(SYSTEM_PROMPT)


@dataclass(frozen=True)
class ToolCall:
    """The model asks for a tool instead of (or before) answering."""

    name: str
    arguments: dict[str, str]


@dataclass
class Usage:
    """What one model request read and wrote, in tokens."""

    input_tokens: int = 0
    output_tokens: int = 0


class RuleModel:
    """Streams replies to a conversation; see the module doc."""

    #: The model as a brain would name it in a TurnStep.
    name = "harbour-rules-1"

    def __init__(self, piece_delay_s: float = 0.015) -> None:
        self.piece_delay_s = piece_delay_s

    async def stream(
        self, context: Sequence[Entry], usage: Usage
    ) -> AsyncGenerator[str | ToolCall, None]:
        """One request: text pieces (the first one empty), or a single ToolCall."""
        usage.input_tokens = _SYSTEM_TOKENS + sum(count_tokens(e["text"]) for e in context)
        answer = _decide(context)
        yield ""  # the opening delta carries no text
        await asyncio.sleep(self.piece_delay_s)
        if isinstance(answer, ToolCall):
            usage.output_tokens = count_tokens(f"{answer.name} {answer.arguments}")
            yield answer
            return
        async for piece in self._pieces(answer, usage):
            yield piece

    async def nudge(self, level: int, usage: Usage) -> AsyncGenerator[str, None]:
        """One request for an idle nudge: short, calmer as it escalates, then a goodbye."""
        text = _IDLE_GOODBYE if says_goodbye(level) else _NUDGES[max(level, 1) - 1]
        usage.input_tokens = _SYSTEM_TOKENS
        yield ""
        async for piece in self._pieces(text, usage):
            yield piece

    async def _pieces(self, text: str, usage: Usage) -> AsyncGenerator[str, None]:
        for piece in _PIECE.findall(text):
            await asyncio.sleep(self.piece_delay_s)
            usage.output_tokens += count_tokens(piece)
            yield piece


def _decide(context: Sequence[Entry]) -> str | ToolCall:
    last = context[-1] if context else {"role": "user", "text": ""}
    if last["role"] == "tool":
        section = last["text"].removeprefix("show_section: ")
        return _SECTIONS.get(section, _FALLBACK)
    said = last["text"].lower()
    if _mentions(said, "price", "prices", "pricing", "cost", "costs", "much", "pass"):
        return ToolCall("show_section", {"section": "pricing"})
    if _mentions(said, "hours", "open", "opening", "close", "closing", "when"):
        return ToolCall("show_section", {"section": "hours"})
    if _mentions(said, "repeat", "again", "pardon"):
        heard = [e["text"] for e in context if e["role"] == "assistant"]
        return f"I said: {heard[-1]}" if heard else "I haven't said anything yet."
    if _mentions(said, "where", "address", "find", "directions", "parking"):
        return _DIRECTIONS
    if _mentions(said, "bye", "goodbye", "thanks", "thank"):
        return _BYE
    if _mentions(said, "hello", "hi", "hey"):
        return _HELLO
    return _FALLBACK


def _mentions(text: str, *words: str) -> bool:
    return _any_word(words).search(text) is not None


@functools.cache
def _any_word(words: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for any of ``words`` as a whole word, compiled once: every request of
    every call asks the same few questions."""
    return re.compile(rf"\b(?:{'|'.join(map(re.escape, words))})\b")
