"""VoqalizeDriver: test a brain against the real call core, with no microphone.

The driver runs the sandbox's own call core — the same code that runs a call — with a
simulated playout clock at a speaking rate you choose, and plays the caller: turns,
typed turns, barge-ins once so many words of the reply have played, backchannels,
silences. It records what was delivered per unit, so a test asserts on what the
caller *heard* rather than on what the brain generated, and the strongest property
is one line: the history your brain wrote equals what the driver says was heard::

    from sandbox.brains import Concierge
    from sandbox.harness import VoqalizeDriver

    async def test_history_is_heard_truth() -> None:
        brain = Concierge()
        async with VoqalizeDriver(brain, ms_per_word=20) as driver:
            await driver.say("Hello there!")                     # once the greeting played
            await driver.barge_in("Where are you?", after_words=3)  # cuts the reply
            await driver.settle()                                # the answer has played
            said = [e for e in brain.history if e["role"] != "tool"]
            assert said == driver.transcript
            assert driver.units[1].interrupted and driver.units[1].heard

The brain is hosted in this process, but every frame still crosses as bytes through
the wire codec. ``VoqalizeDriver(brain_url="ws://...")`` drives a running brain over
a real WebSocket instead (``sandbox check`` does). Caller actions wait the way a
caller would: ``say`` speaks once the bot has been quiet a moment, ``barge_in`` once
``after_words`` words of the current reply have played. One that cannot be carried
out in ``step_timeout_s`` raises :class:`DriverError`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from sandbox.call.core import DEFAULT_CAPABILITIES
from sandbox.call.effects import CallEnded
from sandbox.call.ledger_records import WireErrorRecord
from sandbox.call.settings import Settings
from sandbox.call.sim_playout import SimPlayout
from sandbox.call.units import Fate
from sandbox.caller.script import Script, Step
from sandbox.caller.script_runner import ScriptRunner
from sandbox.harness.inproc import open_inproc_call
from sandbox.host.core_records import CoreRecord, CoreRecords
from sandbox.host.launch import CallOptions, open_call
from sandbox.host.session import CallHost
from sandbox.record.conversation_log import heard_history
from sandbox.record.recorder import FrameRecord
from sandbox.record.report import report_json
from sandbox.sdk.brain import Brain

#: Fast enough for quick tests, slow enough that a barge-in lands mid-reply.
DEFAULT_MS_PER_WORD = 20
#: A turn the brain has not started answering by then counts as answered with silence.
DEFAULT_ANSWER_WITHIN_MS = 3_000
DEFAULT_STEP_TIMEOUT_S = 10.0


class DriverError(RuntimeError):
    """A caller action could not be carried out: the bot never finished, or the call ended."""


@dataclass(frozen=True)
class HeardUnit:
    """One unit of the brain's speech and what the caller heard of it.

    ``generated`` is everything the brain sent for the unit (text discarded unspoken
    included); ``heard`` is the delivered prefix the unit's Finalize carried;
    ``interrupted``: its fate is sealed and ``heard != generated`` (``Unit.interrupted``,
    the one definition). ``fate``: played, barged, cancelled,
    dead (opened for a turn already talked over), silent, abandoned, or "in play".
    """

    speech_id: int
    turn_id: int
    generated: str
    heard: str
    interrupted: bool
    fate: Fate


class VoqalizeDriver:
    """Plays Voqalize and the caller against one brain; see the module doc."""

    def __init__(
        self,
        brain: Brain | None = None,
        *,
        brain_url: str | None = None,
        relay: bool = False,
        ms_per_word: int = DEFAULT_MS_PER_WORD,
        capabilities: Iterable[int] = DEFAULT_CAPABILITIES,
        settings: Settings | None = None,
        init: str = "{}",
        answer_within_ms: int = DEFAULT_ANSWER_WITHIN_MS,
        step_timeout_s: float = DEFAULT_STEP_TIMEOUT_S,
    ) -> None:
        """Give a ``brain`` to host in process, or the ``brain_url`` of a running one.

        ``settings`` default to idle detection off, so no idle turn surprises a test;
        ``capabilities`` to what the sandbox honours (SpeechCancel and TurnStep).
        """
        if (brain is None) == (brain_url is None):
            raise ValueError("give the driver a brain or a brain_url, not both or neither")
        if ms_per_word <= 0:
            raise ValueError("ms_per_word must be positive")
        self._brain = brain
        self._options = CallOptions(
            brain_url=brain_url,
            relay=relay,
            init=init,
            settings=settings or Settings(idle_ms=0),
            capabilities=tuple(capabilities),
            stall_ms=answer_within_ms,
        )
        self._ms_per_word = ms_per_word
        self._step_timeout_s = step_timeout_s
        self._host: CallHost | None = None
        self._records: CoreRecords | None = None
        self._runner: ScriptRunner | None = None
        self._call: asyncio.Task[CallEnded] | None = None
        self._actions = 0

    # ------------------------------------------------------------------ the call

    async def start(self) -> None:
        """Open the call: SessionStart goes out and the greeting, if any, starts to play."""
        if self._host is not None:
            raise DriverError("the driver has already started its call")
        playout = SimPlayout(ms_per_word=self._ms_per_word)
        if self._brain is not None:
            host = open_inproc_call(self._options, self._brain, playout)
        else:
            assert self._options.brain_url is not None
            host = await open_call(self._options, self._options.brain_url, playout)
        self._host = host
        self._records = CoreRecords(host)
        self._runner = ScriptRunner(host, Script(()), step_timeout_s=self._step_timeout_s)
        self._call = asyncio.create_task(host.run())

    async def hang_up(self) -> CallEnded | None:
        """End the call as the caller (if it is still on) and return how it ended."""
        if self._call is None:
            return None
        if self.ended is None:
            self._live().hang_up()
        return await self._call

    async def __aenter__(self) -> VoqalizeDriver:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.hang_up()

    # --------------------------------------------------------------- the caller

    async def say(self, text: str) -> None:
        """A caller turn, spoken once the bot has finished and been quiet a moment."""
        await self.play(Step("say", text=text))

    async def type(self, text: str) -> None:
        """A typed turn (the app's send-text), once the bot has finished."""
        await self.play(Step("type", text=text))

    async def barge_in(self, text: str, *, after_words: int = 2) -> None:
        """A caller turn spoken over the bot once ``after_words`` words of its reply played."""
        await self.play(Step("barge_in", text=text, after_words=after_words))

    async def backchannel(self, text: str, *, after_words: int = 2) -> None:
        """A short "mm-hmm" over the bot once ``after_words`` words played; it must not cut."""
        await self.play(Step("backchannel", text=text, after_words=after_words))

    async def rtvi(self, rtvi_type: str, data: Any = None, rtvi_id: str | None = None) -> None:
        """An RTVI message from the app (``"ui-event"``...); ``data`` is JSON-encoded."""
        encoded = json.dumps({} if data is None else data)
        await self.play(Step("rtvi", rtvi_type=rtvi_type, rtvi_data=encoded, rtvi_id=rtvi_id))

    async def idle(self, ms: int) -> None:
        """The caller stays silent for ``ms`` (an idle turn fires if settings allow one)."""
        await self.play(Step("silence_ms", ms=ms))

    async def play(self, step: Step) -> None:
        """Carry out one caller-script step (what the methods above build)."""
        runner = self._live_runner()
        if self.ended is not None:
            raise DriverError(f"cannot {step.kind}: {self._ended_words()}")
        self._actions += 1
        seen = len(runner.notes)
        await runner.play(step, self._actions)
        self._raise_if_stuck(seen)
        if self.ended is not None and step.kind != "end":
            raise DriverError(f"while waiting to {step.kind}: {self._ended_words()}")

    async def settle(self) -> None:
        """Wait until the bot has finished speaking and every Finalize is out."""
        runner = self._live_runner()
        seen = len(runner.notes)
        await runner.settle(self._actions)
        self._raise_if_stuck(seen)

    # ------------------------------------------------------------ what happened

    @property
    def units(self) -> list[HeardUnit]:
        """Every unit the brain opened, in the order they opened."""
        return [
            HeardUnit(
                speech_id=u.speech_id,
                turn_id=u.turn_id,
                generated=u.generated,
                heard=u.heard,
                interrupted=u.interrupted,
                fate=u.reported_fate,
            )
            for u in self._live().core.units
        ]

    @property
    def heard(self) -> list[str]:
        """What the caller heard of each unit, in order ("" for a unit never heard)."""
        return [unit.heard for unit in self.units]

    @property
    def transcript(self) -> list[dict[str, str]]:
        """The conversation as the caller knows it: their turns and what they heard.

        Entries are ``{"role": "user" | "assistant", "text": ...}`` in wire order; a
        unit heard as nothing is no entry — the shape of a heard-truth history.
        """
        host = self._live()
        heard = {u.speech_id: u.heard for u in host.core.units}
        history = heard_history(host.recorder.conversation.records, heard)
        return [{"role": role, "text": text} for role, text in history]

    @property
    def frames(self) -> list[FrameRecord]:
        """Every frame that crossed, both ways, as recorded (``dir`` "in" is from the brain)."""
        return self._live().recorder.frames

    @property
    def records(self) -> list[tuple[int, CoreRecord]]:
        """The core's records of the call so far, each with the call's time when it made it
        (see :mod:`sandbox.host.core_records`): what ``sandbox check`` judges."""
        self._live()
        assert self._records is not None  # kept from the start of the call
        return list(self._records.records)

    @property
    def errors(self) -> list[WireErrorRecord]:
        """Errors either side reported (``dir`` "out": Voqalize told the brain)."""
        return list(self._live().core.ledger.errors)

    @property
    def ended(self) -> CallEnded | None:
        """How the call ended, or None while it is on."""
        return self._live().core.ended

    @property
    def session_id(self) -> str:
        """The session's id, as the brain saw it on SessionStart."""
        return self._live().core.session_id

    def report(self) -> dict[str, Any]:
        """The call's report as the JSON object ``sandbox call --report`` writes (a brain
        author's test reads it by key, as a script reads the file)."""
        report = self._live().recorder.report(self._live().core, script_notes=self._notes())
        return report_json(report)

    # ---------------------------------------------------------------- internals

    def _live(self) -> CallHost:
        if self._host is None:
            raise DriverError("the driver has not started: use `async with` or await start()")
        return self._host

    def _live_runner(self) -> ScriptRunner:
        self._live()
        assert self._runner is not None
        return self._runner

    def _notes(self) -> list[str]:
        return list(self._runner.notes) if self._runner else []

    def _raise_if_stuck(self, seen: int) -> None:
        fresh = self._notes()[seen:]
        if fresh:
            raise DriverError("; ".join(fresh))

    def _ended_words(self) -> str:
        ended = self.ended
        assert ended is not None
        detail = f" ({ended.detail})" if ended.detail else ""
        return f"the call has ended, by {ended.ended_by}{detail}"
