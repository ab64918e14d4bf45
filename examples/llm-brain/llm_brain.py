"""A brain on any OpenAI-compatible chat endpoint: a local server (Ollama, llama.cpp's) or a
hosted one, by base URL and model name (LLM_BASE_URL, LLM_MODEL, LLM_API_KEY).

What nearly every voice brain needs, each in a few lines:

- the model's tokens streamed into speech a clause at a time, so the caller hears the first
  clause while the model writes the rest;
- history from what the caller *heard* (each unit's Finalize), never from what the model
  generated: a reply cut after one clause is remembered as that clause;
- one tool, ``check_booking``, with a spoken filler while it runs, reported as a TurnStep;
- a guardrail that takes speech back (SpeechCancel) when the model starts a promise the
  business cannot make;
- an idle handler for a caller who goes quiet: two nudges, a goodbye, then it hangs up;
- the model's request closed when the caller barges in: the SDK stops the speaking generator
  (``aclose``), and the ``async with`` around the stream closes the HTTP response, so the
  model stops generating and no tokens are billed for a turn nobody will hear.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from typing import Any, cast

from openai import AsyncOpenAI, AsyncStream
from openai.types.chat import (
    ChatCompletionChunk,
    ChatCompletionMessageParam,
    ChatCompletionToolParam,
)

from sandbox.sdk import (
    Brain,
    Finalize,
    Session,
    Speech,
    SpeechChunk,
    SpeechEnd,
    SpeechStart,
    TurnStep,
    UserIdle,
    UserMessage,
)

BASE_URL = os.environ.get("LLM_BASE_URL", "http://127.0.0.1:11434/v1")  # Ollama's
MODEL = os.environ.get("LLM_MODEL", "llama3.2")
API_KEY = os.environ.get("LLM_API_KEY", "none")  # a local server takes any

GREETING = "Hello, Harbour Street Studio. How can I help?"
SYSTEM = (
    "You are the receptionist of Harbour Street Studio, on the phone. Answer in one or two "
    "short spoken sentences, no lists, no markdown. Use check_booking to look up a booking."
)
TOOLS: list[ChatCompletionToolParam] = [
    {
        "type": "function",
        "function": {
            "name": "check_booking",
            "description": "Look up a class booking by the caller's name.",
            "parameters": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            },
        },
    }
]
FILLER = "Let me check that for you."
#: Said in place of a promise the guardrail took back.
INSTEAD = "I can't promise that, but I can put you on the waiting list."
NUDGES = ("Are you still there?", "I'll be here if you need anything else.")
#: Said at the idle turn after the last nudge; once it is heard whole, the brain hangs up.
GOODBYE = "It sounds like you've stepped away, so I'll hang up now. Goodbye!"
#: A clause ends at its punctuation: it is spoken as soon as it is written.
CLAUSE_END = re.compile(r"[.!?,;:]\s")
#: What the business cannot promise: the guardrail takes a unit back when it starts one.
PROMISE = re.compile(r"\bguarantee", re.IGNORECASE)
#: Model requests per turn before the brain stops asking (a tool loop guard).
MAX_HOPS = 3
BOOKINGS = {"ada": "Thursday's pottery class at six"}


class LlmBrain(Brain):
    """See the module doc. ``history`` is the chat as the caller heard it."""

    def __init__(self, client: AsyncOpenAI | None = None, model: str = MODEL) -> None:
        self.client = client or AsyncOpenAI(base_url=BASE_URL, api_key=API_KEY)
        self.model = model
        self.history: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}]
        # The assistant messages of units said, oldest first: one Finalize is coming for each.
        self._awaiting: deque[dict[str, Any]] = deque()
        self._saying_goodbye = False

    async def greet(self, session: Session) -> str:
        return GREETING

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        self.history.append({"role": "user", "content": msg.text})
        started = time.monotonic()
        voice = _Voice(self)
        for _ in range(MAX_HOPS):
            calls: list[dict[str, Any]] = []
            async for item in self._reply(session, voice, calls, started):
                yield item
            if not calls:
                break
            # Said while the tool runs, in the unit the answer goes on in: one reply, with a
            # pause in it (the record shows the pause as dead air, as a caller hears it).
            for item in voice.say(FILLER + " "):
                yield item
            self.history.append({"role": "assistant", "content": None, "tool_calls": calls})
            for call in calls:
                self.history.append(self._run_tool(session, call, started))
        for item in voice.end():
            yield item

    async def on_user_idle(self, session: Session, idle: UserIdle) -> AsyncIterator[Speech]:
        """``level`` counts the nudges in a row: nudge, nudge, then say goodbye."""
        self._saying_goodbye = idle.level > len(NUDGES)
        line = GOODBYE if self._saying_goodbye else NUDGES[idle.level - 1]
        voice = _Voice(self)
        for item in [*voice.say(line), *voice.end()]:
            yield item

    async def on_finalize(self, session: Session, fin: Finalize) -> None:
        """What the caller heard replaces what was generated; unheard, it never happened.
        The goodbye heard whole ends the call; cut into, the caller is back."""
        if self._saying_goodbye:  # an idle turn's unit is the only one out
            self._saying_goodbye = False
            if not fin.interrupted:
                session.end()
        if not self._awaiting:  # the greeting: no unit of ours awaits it
            self.history.append({"role": "assistant", "content": fin.heard})
            return
        said = self._awaiting.popleft()
        if fin.heard:
            said["content"] = fin.heard
        else:
            self.history.remove(said)

    async def _reply(
        self, session: Session, voice: _Voice, calls: list[dict[str, Any]], started: float
    ) -> AsyncIterator[Speech]:
        """One model request, streamed: each clause spoken as it is written; a tool call is
        left in ``calls``. Closing this generator (a barge-in) closes the request."""
        asked = time.monotonic()
        # History entries are edited in place when a Finalize comes: plain dicts, in the
        # shape of the client's message types.
        messages = cast("list[ChatCompletionMessageParam]", self.history)
        stream = await self.client.chat.completions.create(
            model=self.model, messages=messages, tools=TOOLS, stream=True
        )
        try:
            # Closed however this ends: a barge-in (aclose) ends the HTTP request with it.
            async with stream, aclosing(_clauses(stream, calls)) as clauses:
                async for clause in clauses:
                    if PROMISE.search(clause):
                        async for item in self._take_back(session, voice):
                            yield item
                        return
                    for item in voice.say(clause):
                        yield item
        finally:
            _report(session, "model", self.model, asked - started, time.monotonic() - asked)

    async def _take_back(self, session: Session, voice: _Voice) -> AsyncIterator[Speech]:
        """The guardrail: the unit that was about to make a promise is taken back (what the
        caller heard of it stays heard), and a safe line is said instead."""
        opened = voice.opened
        if opened is not None and opened.speech_id is not None and session.can_cancel_speech:
            voice.opened = None  # SpeechCancel closes it
            await session.cancel_speech(opened.speech_id)
        for item in voice.say(INSTEAD):  # the promise itself was never sent
            yield item

    def _said(self) -> dict[str, Any]:
        """Enrol a unit just opened: its Finalize will say what of it was heard."""
        entry: dict[str, Any] = {"role": "assistant", "content": ""}
        self.history.append(entry)
        self._awaiting.append(entry)
        return entry

    def _run_tool(self, session: Session, call: dict[str, Any], started: float) -> dict[str, Any]:
        ran = time.monotonic()
        try:
            name = str(json.loads(call["function"]["arguments"] or "{}").get("name", ""))
        except (json.JSONDecodeError, AttributeError):
            name = ""
        found = BOOKINGS.get(name.strip().lower(), "no booking under that name")
        _report(session, "tool", call["function"]["name"], ran - started, time.monotonic() - ran)
        return {"role": "tool", "tool_call_id": call["id"], "content": found}


class _Voice:
    """A turn's open unit, if any: opened on its first words, so a hop that only calls a tool
    opens nothing, and kept open across a tool call."""

    def __init__(self, brain: LlmBrain) -> None:
        self._brain = brain
        self.opened: SpeechStart | None = None
        self._entry: dict[str, Any] = {}

    def say(self, text: str) -> list[Speech]:
        """What to yield to say ``text``: the unit's SpeechStart first, if it is not open."""
        out: list[Speech] = []
        if self.opened is None:
            self.opened = SpeechStart()
            out.append(self.opened)
            self._entry = self._brain._said()
        self._entry["content"] += text
        return [*out, SpeechChunk(text)]

    def end(self) -> list[Speech]:
        """What to yield to close the open unit (nothing, if none is)."""
        if self.opened is None:
            return []
        self.opened = None
        return [SpeechEnd()]


async def _clauses(
    stream: AsyncStream[ChatCompletionChunk], calls: list[dict[str, Any]]
) -> AsyncGenerator[str, None]:
    """The streamed reply's text a clause at a time (the rest once it ends); its tool call's
    pieces folded into ``calls``."""
    pending = ""
    async for chunk in stream:
        delta = chunk.choices[0].delta if chunk.choices else None
        if delta is None:
            continue
        for call in delta.tool_calls or ():
            _add_call(calls, call.index, call.id, call.function)
        pending += delta.content or ""
        while (end := CLAUSE_END.search(pending)) is not None:
            clause, pending = pending[: end.end()], pending[end.end() :]
            yield clause
    if pending.strip():
        yield pending


def _add_call(calls: list[dict[str, Any]], index: int, call_id: str | None, function: Any) -> None:
    """Fold one streamed piece of a tool call into ``calls`` (pieces arrive by index)."""
    while len(calls) <= index:
        calls.append({"id": "", "type": "function", "function": {"name": "", "arguments": ""}})
    call = calls[index]
    call["id"] = call_id or call["id"]
    if function is not None:
        call["function"]["name"] += function.name or ""
        call["function"]["arguments"] += function.arguments or ""


def _report(session: Session, kind: str, name: str, start_s: float, took_s: float) -> None:
    """A TurnStep for one piece of work, where this Voqalize records them."""
    if session.can_report_steps:
        session.report_step(
            TurnStep(
                kind=kind,
                name=name,
                start_ms=round(start_s * 1000),
                duration_ms=round(took_s * 1000),
            )
        )
