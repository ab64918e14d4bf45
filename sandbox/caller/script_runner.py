"""Plays a caller script against a running call, as the caller would.

The caller is either text (``--audio sim``: turns are committed text, barge-ins are
decided by the script) or a voice (``--audio real``: lines are spoken into the microphone
and the audio engine decides turns, barge-ins and backchannels by itself).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from sandbox.call.effects import CallState, Effect, StateChanged, UnitChanged
from sandbox.call.turn_records import TurnKind, TurnSent
from sandbox.caller.expect import EXPECTING_KINDS, StepMark
from sandbox.caller.script import Script, Step
from sandbox.host.session import CallHost
from sandbox.record.stored_events import ScriptNoted

#: How long the bot must have been quiet before the caller speaks again.
SETTLE_MS = 400
#: How long one step may wait with nothing from the bot (no text for a unit, no word played)
#: before the script gives up on it. Counted from the bot's last sign of life, not the step's
#: start: a brain may await a long tool mid-unit (dead air, shown and recorded), and a long
#: reply that keeps playing is no reason to give up.
STEP_TIMEOUT_S = 60.0
#: How often a waiting step wakes with nothing from the call: what it waits for is checked
#: after every event the host handles, so this only bounds how late a give-up is noticed.
#: (At 50 ms, 2,000 calls at once woke the event loop 40,000 times a second for nothing.)
_SLICE_S = 1.0


class Caller(Protocol):
    """How the script's caller reaches the call."""

    async def say(self, text: str) -> None:
        """A caller turn, spoken while the bot is quiet."""

    async def resume(self, text: str, pause_ms: int, then: str) -> None:
        """A turn said in two parts with a pause between, as one thought."""

    async def over_bot(self, text: str, *, barge_in: bool) -> None:
        """Words over the bot: a barge-in that takes the floor, or a backchannel."""


@dataclass
class TextCaller:
    """Committed text straight into the core; the script decides what is a barge-in."""

    host: CallHost

    async def say(self, text: str) -> None:
        """Commit a caller turn."""
        self.host.caller_turn(text)

    async def resume(self, text: str, pause_ms: int, then: str) -> None:
        """Commit the whole thought: without audio there is no pause to endpoint."""
        self.host.caller_turn(f"{text} {then}")

    async def over_bot(self, text: str, *, barge_in: bool) -> None:
        """Barge in and commit, or show a backchannel."""
        if barge_in:
            self.host.barge_in()
            self.host.caller_turn(text)
        else:
            self.host.backchannel(text)


@dataclass
class ScriptRunner:
    """Drives a CallHost through a script's steps; notes what could not be done."""

    host: CallHost
    script: Script
    caller: Caller | None = None  # default: a TextCaller on the host
    step_timeout_s: float = STEP_TIMEOUT_S
    notes: list[str] = field(default_factory=list)
    #: Each step that mints a turn, as it played: when, and the turns it minted.
    marks: list[StepMark] = field(default_factory=list)
    #: When each unit's first word reached the output, by speech id (call time).
    first_audio: dict[int, int] = field(default_factory=dict)
    _quiet_since: int | None = None
    _words_at_turn: int = 0
    _words_seen: int = 0
    #: When the bot last showed a sign of life (a unit changed), on the event loop's clock.
    _alive_at: float = 0.0

    def __post_init__(self) -> None:
        self.host.on_effect.append(self._watch)
        self._caller: Caller = self.caller or TextCaller(self.host)
        self.host.recorder.event(self.host.now(), ScriptNoted(tuple(self.notes)))

    def _note(self, words: str) -> None:
        """Note what could not be done, in the report and, as it is noted, the store."""
        self.notes.append(words)
        self.host.recorder.event(self.host.now(), ScriptNoted(tuple(self.notes)))

    def _watch(self, effect: Effect) -> None:
        if isinstance(effect, StateChanged):
            listening = effect.state is CallState.LISTENING
            self._quiet_since = self.host.now() if listening else None
        elif isinstance(effect, TurnSent) and effect.kind is not TurnKind.GREETING:
            self._words_at_turn = self.host.words_played
            self._minted(effect)
        elif isinstance(effect, UnitChanged):
            self._alive_at = asyncio.get_running_loop().time()
            if self.host.words_played != self._words_seen:
                # A word was released just now (a unit also changes when its text grows).
                self._words_seen = self.host.words_played
                self.first_audio.setdefault(effect.speech_id, self.host.now())

    def _minted(self, sent: TurnSent) -> None:
        """A turn went out: it belongs to the latest step that mints its kind of turn (a
        line is committed after its step began; an idle turn only during a silence)."""
        idle = sent.kind is TurnKind.IDLE
        for mark in reversed(self.marks):
            if (mark.kind == "silence_ms") == idle:
                if idle and mark is not self.marks[-1]:
                    return  # an idle turn after the silence's step is over: no step's
                mark.turns.append(sent.turn_id)
                if idle:
                    mark.turn_end_ms = self.host.now()
                return

    async def run(self) -> None:
        """Play every step, then hang up once the bot is quiet (unless the call ended)."""
        for index, step in enumerate(self.script.steps, start=1):
            if self.host.core.ended is not None:
                self._note(f"step {index} ({step.kind}) not played: the call had ended")
                return
            await self.play(step, index)
        if self.host.core.ended is None:
            await self.settle()
            self.host.hang_up()

    async def settle(self, index: int = 0) -> bool:
        """Wait until the bot has finished and been quiet a moment; False if it never did."""
        while True:
            if not await self._until("the bot to finish", self._listening, index):
                return False
            since = self._quiet_since
            left = SETTLE_MS - (self.host.now() - since) if since is not None else SETTLE_MS
            if left <= 0:
                return True
            await self.host.sleep(left)  # call time: a warp clock skips it

    async def until_words(self, words: int, index: int = 0) -> bool:
        """Wait until ``words`` words of the bot's current reply have played."""
        return await self._until(f"{words} words of the bot's reply", self._heard(words), index)

    async def play(self, step: Step, index: int = 0) -> None:
        """Carry out one step; ``index`` names it in notes (0: not part of the script)."""
        if step.kind in ("say", "type"):
            await self.settle(index)
            self._spoke()
            mark = self._mark(step.kind, index)
            if step.kind == "type":
                self.host.caller_turn(step.text, typed=True)
            elif step.then:
                await self._caller.resume(step.text, step.pause_ms, step.then)
            else:
                await self._caller.say(step.text)
            mark.turn_end_ms = self.host.now()
        elif step.kind == "barge_in":
            await self.until_words(step.after_words, index)
            self._spoke()
            mark = self._mark(step.kind, index)
            await self._caller.over_bot(step.text, barge_in=True)
            mark.turn_end_ms = self.host.now()
        elif step.kind == "backchannel":
            await self.until_words(step.after_words, index)
            await self._caller.over_bot(step.text, barge_in=False)
        elif step.kind == "rtvi":
            self.host.from_app(step.rtvi_type, step.rtvi_data, step.rtvi_id)
        elif step.kind == "silence_ms":
            await self.silent(step.ms, index)
        elif step.kind == "end":
            if not step.now:
                await self.settle(index)
            self.host.hang_up()

    async def silent(self, ms: int, index: int = 0) -> None:
        """Say nothing for ``ms`` counted from when the bot stopped speaking, as the wire's
        idle wait counts: a silence over the bot's reply would never let idle fire."""
        if not await self._until("the bot to finish", self._listening, index):
            return
        if index:
            self._mark("silence_ms", index)
        since = self._quiet_since if self._quiet_since is not None else self.host.now()
        await self.host.sleep(ms - (self.host.now() - since))

    def _mark(self, kind: str, index: int) -> StepMark:
        """The step starts now; its turns and its answer are told apart from here on."""
        assert kind in EXPECTING_KINDS
        mark = StepMark(index, kind, self.host.now())
        self.marks.append(mark)
        return mark

    def _spoke(self) -> None:
        # The core hears of it on its next event; until then the bot is not "quiet".
        self._quiet_since = None
        self._words_at_turn = self.host.words_played

    def _listening(self) -> bool:
        return self._quiet_since is not None

    def _heard(self, words: int) -> Callable[[], bool]:
        return lambda: self.host.words_played - self._words_at_turn >= words

    async def _until(self, what: str, predicate: Callable[[], bool], index: int) -> bool:
        """Wake on every event the host handles (and at least every :data:`_SLICE_S`, to
        notice a timeout); a timeout (``step_timeout_s`` with no sign of life from the bot)
        is noted, never raised."""
        loop = asyncio.get_running_loop()
        began = loop.time()
        while not await self.host.wait_for(predicate, _SLICE_S):
            if self.host.core.ended is not None:
                return False
            if loop.time() > max(began, self._alive_at) + self.step_timeout_s:
                where = f"step {index}" if index else "end of script"
                self._note(f"{where}: gave up waiting for {what} after {self.step_timeout_s:.0f} s")
                return False
        return True


async def play_through(host: CallHost, runner: ScriptRunner) -> None:
    """Run the call with the script playing into it, until the call ends."""
    playing = asyncio.create_task(runner.run())
    try:
        await host.run()
    finally:
        playing.cancel()
