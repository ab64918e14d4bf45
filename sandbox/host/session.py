"""CallHost: the thin asyncio layer that moves bytes and time between the core and the world.

One consumer, one event at a time: frames from the brain, caller events (script, UI,
audio engine), playout progress and timers all become calls into the CallCore in the
order they happened, and its effects are carried out in the order it returned them, each
to its one port. The brain's end of the link is :mod:`sandbox.host.brain_side`; what the
call's drivers wait on, :mod:`sandbox.host.call_waits`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import assert_never

from sandbox.call.caller_events import Backchannel, BargeIn, ListenerEvent, OverBot
from sandbox.call.core import CallCore
from sandbox.call.effects import (
    CallEnded,
    CloseUnit,
    Effect,
    ListenEffect,
    OpenUnit,
    PlayoutEffect,
    RecordEffect,
    ScreenEffect,
    SpeakText,
    ToApp,
    UnitChanged,
    WireEffect,
    config_answer,
)
from sandbox.call.inputs import (
    AppFrame,
    Configure,
    CoreInput,
    HangUp,
    LineGiven,
    Start,
    Tick,
    UnitCounted,
)
from sandbox.call.played import (
    AudioMark,
    ClauseUnsaid,
    UnitPlayed,
    UnitUnspoken,
    WordPlayed,
)
from sandbox.call.ports import Listening, Playout, listen, play
from sandbox.call.snapshot import CallSnapshot
from sandbox.call.units import UnitView
from sandbox.host.brain_side import BrainLink, BrainSide
from sandbox.host.call_waits import CallWaits
from sandbox.host.posted import Posted
from sandbox.host.warp import WarpClock, brain_owes
from sandbox.record.recorder import FrameRecord, Recorder
from sandbox.wire import pb

log = logging.getLogger(__name__)

#: Rounds of playout progress and timers at one instant before the host calls it a loop.
PUMP_LIMIT = 1000
#: How long the reader may take, once the link has closed, to hand over what was left.
READ_AFTER_CLOSE_S = 0.5
#: The most events one turn of the event loop takes before it lets others run.
EVENTS_A_TURN = 64


@dataclass
class CallHost:
    """Runs one call: the core, the brain's socket, a playout clock and the recorder.

    Construct it inside the running event loop that will run it: threads post into it.
    """

    core: CallCore
    conn: BrainLink
    playout: Playout
    recorder: Recorder
    relay: bool = False
    clock: Callable[[], float] = time.monotonic
    #: The screen's port: what the user is shown (the app, a transcript printer).
    on_screen: list[Callable[[ScreenEffect], None]] = field(default_factory=list)
    #: Watchers of every effect, whatever its port, in the order carried out (benches, tests).
    on_effect: list[Callable[[Effect], None]] = field(default_factory=list)
    on_frame: list[Callable[[FrameRecord], None]] = field(default_factory=list)
    #: Watchers of every input the core takes, with the time it took it, in order: fed
    #: through a fresh core in that order, they make the same call (see inputs.py).
    on_input: list[Callable[[int, CoreInput], None]] = field(default_factory=list)
    #: The recognizer, told of settings that change how the caller is heard (real audio).
    listening: Listening | None = None
    #: A simulated call's clock that skips dead time (it replaces ``clock``); see warp.py.
    warp: WarpClock | None = None

    words_played: int = 0
    #: The call as it last stood for the screen, frozen: replaced (never changed) on the
    #: host's loop before each batch of effects the screen is shown, so another thread (the
    #: app's) may read it at any moment; see :mod:`sandbox.call.snapshot`.
    latest: CallSnapshot = field(init=False)
    #: The brain's end of the call (built from ``conn``): frames both ways, the close.
    brain: BrainSide = field(init=False)
    #: What the call's drivers wait on: ``sleep`` and ``wait_for``.
    waits: CallWaits = field(init=False)
    _events: deque[Posted] = field(default_factory=deque)
    #: The step waiting for an input (see _wait); True is set when one is posted or it is woken.
    _wakeup: asyncio.Future[bool] | None = None
    #: Woken with nothing posted (playout released something, a waiter is due), and the
    #: step has not yet run since: it must not wait, nor skip time on a warp clock.
    _woken: bool = False
    _t0: float = 0.0
    _loop: asyncio.AbstractEventLoop = field(init=False)

    def __post_init__(self) -> None:
        # The clock starts when the host exists, so the audio engine started before
        # run() already speaks the call's time; the core is started on this clock at
        # whatever it reads then, and counts the session's waits from there. No running
        # loop raises RuntimeError here, rather than dropping what threads post later.
        if self.warp is not None:
            self.clock = self.warp
        self._t0 = self.clock()
        self._loop = asyncio.get_running_loop()
        self.latest = self.core.snapshot()
        self.brain = BrainSide(
            self.core, self.conn, self.recorder, self.post, self.now,
            relay=self.relay, warp=self.warp, on_frame=self.on_frame,
        )  # fmt: skip
        self.waits = CallWaits(
            self.now, self.clock, lambda: self.core.ended is not None, self._wake
        )

    def now(self) -> int:
        """The call's time in milliseconds: since this host was built. Every time the core
        is given is on this clock, its start included."""
        return int((self.clock() - self._t0) * 1000)

    def wall_of_effects(self) -> float:
        """The wall time (``time.monotonic()``) the effects being carried out answer: when
        the brain's frame behind them reached this process (its bytes came off the socket),
        else now. A loop busy with other calls gets to a frame a while after it came: a load
        run's latencies then measure the brain, not how long this process took to get to
        its frame."""
        read_at = self.brain.taking_read_at
        return time.monotonic() if read_at is None else read_at

    def unit_view(self, speech_id: int) -> UnitView | None:
        """A unit as it stands, frozen, to hand to another thread; on the host's loop."""
        unit = self.core.unit(speech_id)
        return None if unit is None else unit.view()

    def unit_views(self) -> list[UnitView]:
        """Every unit as it stands, frozen, in the order they opened; on the host's loop."""
        return [unit.view() for unit in self.core.units]

    @property
    def backlog(self) -> int:
        """Events posted to the core and not yet taken (a soak watches it stay low)."""
        return len(self._events)

    # ---------------------------------------------------------------- inputs

    def post(self, fed: CoreInput | Posted) -> None:
        """Queue an input for the core, from the event loop's thread (a :class:`Posted`
        when its poster is told as the core takes it)."""
        self._events.append(fed if isinstance(fed, Posted) else Posted(fed))
        self._resolve()

    def post_threadsafe(self, fed: CoreInput | Posted) -> None:
        """Queue an input for the core from another thread (the audio engine)."""
        self._loop.call_soon_threadsafe(self.post, fed)

    def wake(self) -> None:
        """From any thread: drain the playout now (it released something)."""
        self._loop.call_soon_threadsafe(self._wake)

    def _wake(self) -> None:
        self._woken = True
        self._resolve()

    def _resolve(self) -> None:
        """Let a step waiting for an input go on."""
        wakeup = self._wakeup
        if wakeup is not None and not wakeup.done():
            wakeup.set_result(True)

    async def caught_up(self) -> None:
        """Return once the core has taken every input posted so far (a thread's posts still
        in the loop's queue included), so a wait that follows sees the call as it now stands."""
        if self.core.ended is not None:
            return
        await asyncio.sleep(0)  # a thread's posts still in the loop's queue land first
        reached = asyncio.Event()
        self.post(Posted(None, lambda _effects: reached.set()))
        await reached.wait()

    def heard(self, event: ListenerEvent) -> None:
        """From the listener's thread: what it decided about the caller, into the core."""
        self.post_threadsafe(event)

    def caller_turn(self, text: str, *, typed: bool = False) -> None:
        """A caller's line given whole (a script's, or typed)."""
        self.post(LineGiven(text, typed))

    def barge_in(self) -> None:
        """The caller took the floor over the bot: the path a voice barge-in takes, pause
        then decide, so a demo's key press behaves as a real call does."""
        now = self.now()
        self.post(OverBot(now, now))
        self.post(BargeIn(now, now, "the caller took the floor"))

    def backchannel(self, text: str) -> None:
        """A backchannel over the bot: shown, never a cut."""
        now = self.now()
        self.post(Backchannel(text, now, now))

    def from_app(self, rtvi_type: str, data: str, rtvi_id: str | None = None) -> None:
        """An RTVI message from the app."""
        self.post(AppFrame(rtvi_type, data, rtvi_id))

    async def configure(self, config: pb.Config) -> str | None:
        """Apply a settings change as a brain's Config would land; the refusal, or None."""
        if self.core.ended is not None:
            return "the call has ended"
        answer: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()

        def taken(effects: list[Effect]) -> None:
            answer.set_result(config_answer(effects))

        self.post(Posted(Configure(config), taken))
        return await answer

    def hang_up(self, why: str = "") -> None:
        """The caller ends the call (``why``: see :class:`~sandbox.call.inputs.HangUp`)."""
        self.post(HangUp(why))

    # ------------------------------------------------------------------ loop

    async def run(self) -> CallEnded:
        """Run the call until the core says it has ended; returns how it ended."""
        self._loop = asyncio.get_running_loop()
        reader = asyncio.create_task(self.brain.read())
        try:
            now = self.now()
            await self._carry(self._feed(Posted(Start()), now), now)
            while self.core.ended is None:
                await self._step()
        finally:
            # Close while the reader still reads: whatever the brain sent before the closing
            # handshake (an End right behind a fatal Error) is recorded, not lost.
            self.brain.let_read_on()
            if await self.brain.close():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(reader), READ_AFTER_CLOSE_S)
            # else the brain streamed on past the end: what is left unread would be counted
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            self._drain()
            self.waits.wake_sleepers(everyone=True)
        return self.core.ended

    def _drain(self) -> None:
        """Run what was posted after the end: the core answers each as an ended call does,
        so nothing waits forever (a ``configure`` resolves with "the call has ended")."""
        while self._events:
            left = self._feed(self._events.popleft(), self.now())
            if left:
                log.warning("dropped %d effects posted after the call ended", len(left))

    async def sleep(self, ms: int) -> None:
        """Wait ``ms`` of call time (skipped over, not slept, on a warp clock); returns at
        once when the call has ended."""
        await self.waits.sleep(ms)

    async def wait_for(self, predicate: Callable[[], bool], timeout_s: float) -> bool:
        """Wait until ``predicate()`` holds after some event, or the timeout; True if it held."""
        return await self.waits.wait_for(predicate, timeout_s)

    async def _step(self) -> None:
        times = (
            self.core.next_deadline(),
            self.playout.next_deadline(),
            self.waits.next_due(),
        )
        due = [d for d in times if d is not None]
        timeout = max(0.0, (min(due) - self.now()) / 1000) if due else None
        if self.warp is not None and timeout:
            timeout = await self._warped(self.warp, timeout)
        event: Posted | None = None
        if self._events or self._woken:  # before what is due: it happened first
            self._woken = False
            event = self._events.popleft() if self._events else None
        else:
            # An input posted as the time ran out waits for the next step, behind what was due.
            woke = await self._wait(timeout)
            self._woken = False
            if woke and self._events:
                event = self._events.popleft()
            elif not woke and self.warp is not None and due:
                self.warp.woke_late(self._t0 + min(due) / 1000)
        for taken in range(EVENTS_A_TURN):
            if taken:
                # Events already waiting are taken in this turn of the loop: one event a
                # turn would let a busy loop (the app drawing) set the pace of the brain.
                if not self._events or self.core.ended is not None:
                    return
                event = self._events.popleft()
            if event is not None:
                try:
                    now = self.now()
                    await self._carry(self._feed(event, now), now)
                finally:
                    self.brain.taking_read_at = None
            word = await self._pump()
            self.waits.wake_sleepers()
            self.waits.wake_waiters()
            if word:  # released on a warp clock: whoever waits for that word acts first
                await asyncio.sleep(0)
                return

    def _feed(self, posted: Posted, now: int) -> list[Effect]:
        """One posted input into the core at ``now``; its poster is told what it did."""
        effects = [] if posted.fed is None else self._handle(posted.fed, now)
        if posted.taken is not None:
            posted.taken(effects)
        return effects

    def _handle(self, fed: CoreInput, now: int) -> list[Effect]:
        """The one place the host feeds the core. The input is stored as it is fed, and the
        report's conversation is folded from what the core made of it at the same moment,
        so the stored inputs fed through a fresh core make the same record."""
        for watch in self.on_input:
            watch(now, fed)
        self.recorder.fed(now, fed, kept=self.core.unit_kept(_unit_named(fed)))
        effects = self.core.handle(fed, now)
        for effect in effects:
            self.recorder.conversation.apply(now, effect)
        return effects

    async def _wait(self, timeout: float | None) -> bool:
        """Wait until an input is posted or the host is woken (True), or ``timeout``
        seconds pass (False; None: however long it takes). A bare future and a timer:
        ``asyncio.wait_for`` on a queue made a task, and more, for each of a call's hundreds
        of waits."""
        if timeout is not None and timeout <= 0:
            await asyncio.sleep(0)  # nothing may be waited for: others still get their turn
            return False
        wakeup: asyncio.Future[bool] = self._loop.create_future()
        self._wakeup = wakeup
        timer = None if timeout is None else self._loop.call_later(timeout, _timed_out, wakeup)
        try:
            return await wakeup
        finally:
            self._wakeup = None
            if timer is not None:
                timer.cancel()

    async def _warped(self, warp: WarpClock, timeout: float) -> float:
        """Skip a wait nothing can interrupt (see warp.py); the wait still to sleep."""
        await asyncio.sleep(0)  # whoever the last step woke acts first (a scripted caller)
        if self._events or self._woken or brain_owes(self.core):
            return timeout
        left = warp.quiet_left()
        if left > 0:
            return min(timeout, left)
        warp.skip(timeout)
        return 0.0

    async def _pump(self) -> bool:
        """Feed playout progress and due timers into the core until nothing more is due; on a
        warp clock, one word at a time (see _released_to): True when it stopped at a word."""
        for _ in range(PUMP_LIMIT):
            now = self.now()
            effects: list[Effect] = []
            word = False
            for played in self.playout.advance(self._released_to(now)):
                if isinstance(played, WordPlayed):
                    word = True
                    self.words_played += 1
                effects += self._handle(played, now)
            # The core's timers are asked only when one is due: every event settles the core
            # as it lands, so a tick before then finds nothing (a call pumps after each of
            # its hundreds of events, and a tick cost twice what asking costs).
            due = self.core.next_deadline()
            if due is not None and now >= due:
                effects += self._handle(Tick(), now)
            if not effects:
                return False
            await self._carry(effects, now)
            if word and self.warp is not None:
                return True
        raise RuntimeError(
            f"playout and timers still produced effects after {PUMP_LIMIT} rounds at "
            f"{self.now()} ms: the core or the playout is looping"
        )

    def _released_to(self, now: int) -> int:
        """How far playout may go now. On a warp clock (a re-drive) no further than its next
        release: a loop that woke late on a busy machine would otherwise release several
        words at once, and a scripted barge-in waiting for the first would land on a later
        one; one word a step lets the caller act between them, at the word it waits for."""
        due = self.playout.next_deadline() if self.warp is not None else None
        return now if due is None else min(now, due)

    async def _carry(self, effects: list[Effect], now: int) -> None:
        """Carry out the effects the core made at ``now``: stored, sent and shown as of the
        moment it decided them (the moment its stored input is fed again at)."""
        if any(isinstance(effect, ScreenEffect) for effect in effects):
            self.latest = self.core.snapshot()  # the screen is shown the call after them
        if self.recorder.keeps_events:  # else an event's data is built for nobody
            # Every decision of the batch is stored before any of its frames crosses: a
            # process killed between an Interruption going out and the next effect still
            # left the units that Interruption sealed sealed in its record. A frame is
            # recorded as it crosses; a redraw's reason is in the frames.
            for effect in effects:
                if not isinstance(effect, WireEffect | UnitChanged) and self._recorded(effect):
                    self.recorder.event(now, effect)
        for effect in effects:
            # Each effect to its one port, in the order the core returned them.
            if isinstance(effect, WireEffect):
                await self.brain.send(effect.env, now, effect.surplus)
            elif isinstance(effect, PlayoutEffect):
                play(effect, now, self.playout)
            elif isinstance(effect, ListenEffect):
                if self.listening is not None:  # a simulated call has no recognizer
                    listen(effect, self.listening)
            elif isinstance(effect, ScreenEffect):
                for show in self.on_screen:
                    show(effect)
            elif not isinstance(effect, RecordEffect):  # the record's: stored above, no port
                assert_never(effect)
            if self.warp is not None:  # the core's records say when the brain works
                self.warp.took(effect)
            for listener in self.on_effect:
                listener(effect)
        # The call record's findings are worked out over the whole call so far, longer the
        # longer the call: never while the brain owes an answer, so a caller's turn goes
        # out and its answer comes in without waiting for them (they follow right after).
        if effects and not self.core.awaiting_brain:
            self.recorder.follow(self.core, now)

    def _recorded(self, effect: Effect) -> bool:
        """Whether an effect is kept as an event of the stored call: not an RTVI frame past
        the call's cap (it crossed to the app, and is counted), nor playout's work on a unit
        the record does not keep (see :mod:`sandbox.call.unit_sample`)."""
        if isinstance(effect, ToApp):
            return effect.recorded
        return not isinstance(effect, _UNIT_PLAYOUT) or self.core.unit_kept(effect.speech_id)


#: Playout effects that name one unit.
_UNIT_PLAYOUT = (OpenUnit, SpeakText, CloseUnit)
#: Inputs that name one unit: playout's progress on it, its frames only counted.
_UNIT_INPUTS = (WordPlayed, UnitPlayed, AudioMark, UnitUnspoken, ClauseUnsaid, UnitCounted)


def _unit_named(fed: CoreInput) -> int:
    """The unit an input names (0: none)."""
    return fed.speech_id if isinstance(fed, _UNIT_INPUTS) else 0


def _timed_out(wakeup: asyncio.Future[bool]) -> None:
    if not wakeup.done():
        wakeup.set_result(False)
