"""The concierge: a receptionist brain on a rule-based model, with heard-truth history.

It streams each reply in token-sized pieces, so a barge-in cuts it mid-sentence, and
it remembers only what the caller heard (see :mod:`sandbox.brains.heard_history`). Asked about
prices or opening hours, its model first calls a tool — ``show_section``, which puts
the section on the caller's screen with ``session.dispatch`` — in a hop that says
nothing and so opens no unit, then answers. Every model request and tool run is
reported as a TurnStep when Voqalize records them. A caller who stays silent is nudged,
then told goodbye, and the concierge ends the call (:mod:`sandbox.brains.idle_escalation`).
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

from sandbox.brains.heard_history import Entry, HeardHistory, Reply
from sandbox.brains.idle_escalation import LettingGo
from sandbox.brains.rule_model import RuleModel, ToolCall, Usage
from sandbox.sdk import (
    Brain,
    Finalize,
    RTVIFrame,
    Session,
    Speech,
    TurnStep,
    UserIdle,
    UserMessage,
)

GREETING = (
    "Hi, thanks for calling Harbour Street Studio! "
    "I can help with our prices, opening hours, or directions."
)
#: Model hops per turn before the concierge stops asking (a tool loop guard).
MAX_HOPS = 3


@dataclass(frozen=True)
class ShowSection:
    """The screen action the ``show_section`` tool dispatches."""

    section: str


class Concierge(Brain):
    """See the module doc. ``history`` is the heard-truth conversation."""

    def __init__(
        self, model: RuleModel | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.model = model or RuleModel()
        self._clock = clock
        self._heard = HeardHistory()
        self._letting_go = LettingGo()
        #: What the app reported from the screen (ui-event data), oldest first.
        self.screen_events: list[Any] = []

    @property
    def history(self) -> list[Entry]:
        """The conversation as the caller heard it."""
        return self._heard.entries

    @property
    def awaiting(self) -> int:
        """Units said whose Finalize has not arrived yet."""
        return self._heard.awaiting

    async def greet(self, session: Session) -> str:
        return GREETING

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        self._heard.user(msg.text)
        turn = _Turn(session, self._clock)
        reply = self._heard.reply()
        for _ in range(MAX_HOPS):
            call: ToolCall | None = None
            async with aclosing(self._hop(turn, reply)) as hop:
                async for item in hop:
                    if isinstance(item, ToolCall):
                        call = item
                    else:
                        yield item
            if call is None:
                break
            self._run_tool(turn, call)
        for item in reply.end():
            yield item

    async def on_user_idle(self, session: Session, idle: UserIdle) -> AsyncIterator[Speech]:
        self._letting_go.idle(idle.level)
        turn = _Turn(session, self._clock)
        reply = self._heard.reply()
        usage = Usage()
        with turn.step("model", self.model.name, usage) as step:
            async with aclosing(self.model.nudge(idle.level, usage)) as pieces:
                async for piece in pieces:
                    step.output(piece)
                    for item in reply.say(piece):
                        yield item
        for item in reply.end():
            yield item

    async def on_finalize(self, session: Session, fin: Finalize) -> None:
        self._heard.on_finalize(fin)
        self._letting_go.finalized(session, fin)

    async def on_rtvi(self, session: Session, frame: RTVIFrame) -> None:
        if frame.type == "ui-event":
            self.screen_events.append(frame.data)

    async def _hop(self, turn: _Turn, reply: Reply) -> AsyncGenerator[Speech | ToolCall, None]:
        """One model request: its text becomes speech; a tool call is handed back."""
        usage = Usage()
        with turn.step("model", self.model.name, usage) as step:
            async with aclosing(self.model.stream(self._heard.entries, usage)) as events:
                async for event in events:
                    step.output(event)
                    if isinstance(event, ToolCall):
                        yield event
                    else:
                        for item in reply.say(event):
                            yield item

    def _run_tool(self, turn: _Turn, call: ToolCall) -> None:
        with turn.step("tool", call.name, None):
            section = call.arguments.get("section", "")
            turn.session.dispatch(ShowSection(section=section))
            self._heard.tool(f"{call.name}: {section}")


class _Turn:
    """Times the steps of one turn, from the moment its stimulus arrived."""

    def __init__(self, session: Session, clock: Callable[[], float]) -> None:
        self.session = session
        self._clock = clock
        self._t0 = clock()

    def ms(self) -> int:
        return max(0, round((self._clock() - self._t0) * 1000))

    def step(self, kind: str, name: str, usage: Usage | None) -> _Step:
        return _Step(self, kind, name, usage)


class _Step:
    """One TurnStep, sent when the work ends — also when a barge-in ends it early."""

    def __init__(self, turn: _Turn, kind: str, name: str, usage: Usage | None) -> None:
        self._turn = turn
        self._kind = kind
        self._name = name
        self._usage = usage
        self._start = 0
        self._first: int | None = None

    def __enter__(self) -> _Step:
        self._start = self._turn.ms()
        return self

    def output(self, event: object) -> None:
        """Note the first real output of a streaming step."""
        if self._first is None and event:
            self._first = self._turn.ms() - self._start

    def __exit__(self, *exc: object) -> None:
        session = self._turn.session
        if not session.can_report_steps:
            return
        counts: dict[str, int] = {}
        if self._usage is not None:
            counts = {
                "input_tokens": self._usage.input_tokens,
                "output_tokens": self._usage.output_tokens,
            }
        session.report_step(
            TurnStep(
                kind=self._kind,
                name=self._name,
                start_ms=self._start,
                duration_ms=self._turn.ms() - self._start,
                first_output_ms=self._first,
                counts=counts,
            )
        )
