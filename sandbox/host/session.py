"""CallHost: the thin asyncio layer that moves bytes and time between the core and the world.

One consumer, one event at a time: frames from the brain, caller events (script, UI,
audio engine), playout progress and timers all become calls into the CallCore in the
order they happened, and its effects are carried out in the order it returned them.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import asdict, dataclass, field
from typing import Protocol, assert_never

from websockets.exceptions import ConnectionClosed

from sandbox.call.caller_events import (
    ListenerEvent,
)
from sandbox.call.core import CallCore
from sandbox.call.drive import feed_heard, feed_played
from sandbox.call.effects import (
    CallEnded,
    Effect,
    ListenEffect,
    PlayoutEffect,
    ScreenEffect,
    ToApp,
    UnitChanged,
    WireEffect,
)
from sandbox.call.played import AudioMark, WordPlayed
from sandbox.call.ports import Listening, Playout, listen, play
from sandbox.call.surplus import Surplus, SurplusFrame
from sandbox.host.warp import WarpClock, brain_owes
from sandbox.record.recorder import FrameRecord, Recorder
from sandbox.wire import pb
from sandbox.wire.codec import WireError, decode, encode
from sandbox.wire.dial import closed_words
from sandbox.wire.relay import frame_relay, unframe_relay

log = logging.getLogger(__name__)

CoreEvent = Callable[[int], list[Effect]]
#: Rounds of playout progress and timers at one instant before the host calls it a loop.
PUMP_LIMIT = 1000
#: How long, once the call has ended, the closing handshake may take before the link is
#: dropped: a brain that streams on past End holds its close frame behind everything it
#: sent (the WebSocket layer would wait 10 s for it), and what it sends then is counted.
CLOSE_WITHIN_S = 0.25
#: How long the reader may take, once the link has closed, to hand over what was left.
READ_AFTER_CLOSE_S = 0.5
#: The brain's frames read but not yet handled by the core, by count and by size. The
#: reader waits while either is reached (one frame always gets through), so a brain that
#: sends faster than the call can handle is held back by its own socket (after the
#: WebSocket layer's own buffer, ``sandbox.wire.dial.MAX_QUEUED_MESSAGES``) instead of
#: growing a queue here.
MAX_WAITING_FRAMES = 64
MAX_WAITING_BYTES = 2**20
#: The most events one turn of the event loop takes before it lets others run.
EVENTS_A_TURN = 64


class BrainLink(Protocol):
    """The brain's end of the wire: a WebSocket connection, or an in-process brain."""

    async def send(self, message: bytes) -> None:
        """Send one binary message."""

    async def close(self) -> None:
        """Close the link; the session ends with it."""

    def __aiter__(self) -> AsyncIterator[str | bytes]:
        """Messages from the brain until the link closes."""


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
    #: The recognizer, told of settings that change how the caller is heard (real audio).
    listening: Listening | None = None
    #: A simulated call's clock that skips dead time (it replaces ``clock``); see warp.py.
    warp: WarpClock | None = None

    words_played: int = 0
    _events: deque[CoreEvent] = field(default_factory=deque)
    #: The step waiting for an event (see _next_event); True is set when one is posted.
    _wakeup: asyncio.Future[bool] | None = None
    _t0: float = 0.0
    _loop: asyncio.AbstractEventLoop = field(init=False)
    _timers: list[tuple[int, int, asyncio.Future[None]]] = field(default_factory=list)
    #: Waits in wait_for: each one's predicate, and the future woken once it holds.
    _waiters: list[tuple[Callable[[], bool], asyncio.Future[None]]] = field(default_factory=list)
    _timer_ids: itertools.count[int] = field(default_factory=itertools.count)
    _waiting: list[int] = field(default_factory=list)  # sizes of the frames not yet taken
    _taken: asyncio.Event = field(default_factory=asyncio.Event)
    #: Text of frames only counted, by unit, waiting for the core (see _counted).
    _counted_chars: dict[int, int] = field(default_factory=dict)
    _starts_waiting: int = 0  # SpeechStarts read from the brain, not yet handled by the core

    def __post_init__(self) -> None:
        # The clock starts when the host exists, so the audio engine started before
        # run() already speaks the call's time; the core is started on this clock at
        # whatever it reads then, and counts the session's waits from there. No running
        # loop raises RuntimeError here, rather than dropping what threads post later.
        if self.warp is not None:
            self.clock = self.warp
        self._t0 = self.clock()
        self._loop = asyncio.get_running_loop()

    def now(self) -> int:
        """The call's time in milliseconds: since this host was built. Every time the core
        is given is on this clock, its start included."""
        return int((self.clock() - self._t0) * 1000)

    @property
    def backlog(self) -> int:
        """Events posted to the core and not yet taken (a soak watches it stay low)."""
        return len(self._events)

    # ---------------------------------------------------------------- inputs

    def post(self, event: CoreEvent) -> None:
        """Queue a call into the core, from the event loop's thread."""
        self._events.append(event)
        wakeup = self._wakeup
        if wakeup is not None and not wakeup.done():
            wakeup.set_result(True)

    def post_threadsafe(self, event: CoreEvent) -> None:
        """Queue a call into the core from another thread (the audio engine)."""
        self._loop.call_soon_threadsafe(self.post, event)

    def wake(self) -> None:
        """From any thread: drain the playout now (it released something)."""
        self.post_threadsafe(_nothing)

    def heard(self, event: ListenerEvent) -> None:
        """From the listener's thread: what it decided about the caller, into the core."""
        if self.recorder.keeps_events:
            self.recorder.event(self.now(), _kind(event), asdict(event))
        self.post_threadsafe(lambda now: feed_heard(self.core, event, now))

    def caller_turn(self, text: str, *, typed: bool = False) -> None:
        """A committed caller turn."""
        self.post(lambda now: self.core.caller_turn(text, now, typed=typed))

    def barge_in(self) -> None:
        """The caller took the floor over the bot: the path a voice barge-in takes, pause
        then decide, so a demo's key press behaves as a real call does."""
        self.post(self.core.caller_over_bot)
        self.post(self.core.barge_in)

    def backchannel(self, text: str) -> None:
        """A backchannel over the bot: shown, never a cut."""
        self.post(lambda now: self.core.backchannel(text, now))

    def from_app(self, rtvi_type: str, data: str, rtvi_id: str | None = None) -> None:
        """An RTVI message from the app."""
        self.post(lambda now: self.core.from_app(rtvi_type, data, rtvi_id, now))

    async def configure(self, config: pb.Config) -> str | None:
        """Apply a settings change as a brain's Config would land; the refusal, or None."""
        if self.core.ended is not None:
            return "the call has ended"
        answer: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()

        def event(now: int) -> list[Effect]:
            problem, effects = self.core.configure(config, now)
            answer.set_result(problem)
            return effects

        self.post(event)
        return await answer

    def hang_up(self, why: str = "") -> None:
        """The caller ends the call (``why``: see :meth:`CallCore.hang_up`)."""
        self.post(lambda now: self.core.hang_up(now, why))

    # ------------------------------------------------------------------ loop

    async def run(self) -> CallEnded:
        """Run the call until the core says it has ended; returns how it ended."""
        self._loop = asyncio.get_running_loop()
        reader = asyncio.create_task(self._read())
        try:
            await self._carry(self.core.start(self.now()))
            while self.core.ended is None:
                await self._step()
        finally:
            # Close while the reader still reads: whatever the brain sent before the closing
            # handshake (an End right behind a fatal Error) is recorded, not lost.
            self._taken.set()  # a reader waiting for room reads on
            if await self._close():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(reader), READ_AFTER_CLOSE_S)
            # else the brain streamed on past the end: what is left unread would be counted
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            self._drain()
            self._wake_sleepers(everyone=True)
        return self.core.ended

    async def _close(self) -> bool:
        """Close the brain's link: the closing handshake, for CLOSE_WITHIN_S at most; then
        the connection is dropped under it, and the close given as long again to finish.
        False: the handshake did not complete in time."""
        closing = asyncio.ensure_future(self.conn.close())
        done, _ = await asyncio.wait({closing}, timeout=CLOSE_WITHIN_S)
        if done:
            if (failed := closing.exception()) is not None:
                # The call is over either way; what the close said goes to the log.
                log.warning("closing the brain's link failed", exc_info=failed)
            return True
        _abort(self.conn)
        done, _ = await asyncio.wait({closing}, timeout=CLOSE_WITHIN_S)
        if done:
            closing.exception()  # what the close met was the drop: nothing to tell
        else:
            closing.cancel()
            log.warning("the brain's link did not close within %g s", 2 * CLOSE_WITHIN_S)
        return False

    def _drain(self) -> None:
        """Run what was posted after the end: the core answers each as an ended call does,
        so nothing waits forever (a ``configure`` resolves with "the call has ended")."""
        while self._events:
            left = self._events.popleft()(self.now())
            if left:
                log.warning("dropped %d effects posted after the call ended", len(left))

    async def sleep(self, ms: int) -> None:
        """Wait ``ms`` of call time (skipped over, not slept, on a warp clock); returns at
        once when the call has ended."""
        if self.core.ended is not None or ms <= 0:
            return
        due = self.now() + ms
        timer: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._timers, (due, next(self._timer_ids), timer))
        self.post(_nothing)  # the loop may be waiting with a later deadline
        await timer

    def _wake_sleepers(self, everyone: bool = False) -> None:
        now = self.now()
        while self._timers and (everyone or self._timers[0][0] <= now):
            _resolve(heapq.heappop(self._timers)[2])

    async def wait_for(self, predicate: Callable[[], bool], timeout_s: float) -> bool:
        """Wait until ``predicate()`` holds after some event, or the timeout; True if it held."""
        loop = asyncio.get_running_loop()
        deadline = self.clock() + timeout_s
        while not predicate():
            left = deadline - self.clock()
            if left <= 0 or self.core.ended is not None:
                return predicate()
            # A bare future, woken straight from the step once the predicate holds (not on
            # every event: 2,000 calls' waits woke for nothing hundreds of times a call): the
            # waiter runs on the loop's very next turn, before a warp clock decides whether
            # anything is left to wait for.
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append((predicate, waiter))
            timer = loop.call_later(left, _resolve, waiter)
            try:
                await waiter
            finally:
                timer.cancel()
        return True

    async def _step(self) -> None:
        times = (
            self.core.next_deadline(),
            self.playout.next_deadline(),
            self._timers[0][0] if self._timers else None,
        )
        due = [d for d in times if d is not None]
        timeout = max(0.0, (min(due) - self.now()) / 1000) if due else None
        if self.warp is not None and timeout:
            timeout = await self._warped(self.warp, timeout)
        event: CoreEvent | None = None
        if self._events:  # before what is due: it happened first
            event = self._events.popleft()
        else:
            event = await self._next_event(timeout)
            if event is None and self.warp is not None and due:
                self.warp.woke_late(self._t0 + min(due) / 1000)
        for taken in range(EVENTS_A_TURN):
            if taken:
                # Events already waiting are taken in this turn of the loop: one event a
                # turn would let a busy loop (the app drawing) set the pace of the brain.
                if not self._events or self.core.ended is not None:
                    return
                event = self._events.popleft()
            if event is not None:
                await self._carry(event(self.now()))
            word = await self._pump()
            self._wake_sleepers()
            self._wake_waiters()
            if word:  # released on a warp clock: whoever waits for that word acts first
                await asyncio.sleep(0)
                return

    async def _next_event(self, timeout: float | None) -> CoreEvent | None:
        """The next event posted within ``timeout`` seconds (None: however long it takes),
        or None. A bare future and a timer: ``asyncio.wait_for`` on a queue made a task,
        and more, for each of a call's hundreds of waits."""
        if timeout is not None and timeout <= 0:
            await asyncio.sleep(0)  # nothing may be waited for: others still get their turn
            return None
        wakeup: asyncio.Future[bool] = self._loop.create_future()
        self._wakeup = wakeup
        timer = None if timeout is None else self._loop.call_later(timeout, _timed_out, wakeup)
        try:
            posted = await wakeup
        finally:
            self._wakeup = None
            if timer is not None:
                timer.cancel()
        # An event posted as the time ran out waits for the next step, behind what was due.
        return self._events.popleft() if posted and self._events else None

    def _wake_waiters(self) -> None:
        """Wake each wait_for whose predicate now holds, and all of them once the call has
        ended (a predicate that raises wakes its waiter, which raises it in its own task)."""
        if not self._waiters:
            return
        ended = self.core.ended is not None
        still: list[tuple[Callable[[], bool], asyncio.Future[None]]] = []
        for predicate, waiter in self._waiters:
            if waiter.done():
                continue
            if ended or _holds(predicate):
                waiter.set_result(None)
            else:
                still.append((predicate, waiter))
        self._waiters = still

    async def _warped(self, warp: WarpClock, timeout: float) -> float:
        """Skip a wait nothing can interrupt (see warp.py); the wait still to sleep."""
        await asyncio.sleep(0)  # whoever the last step woke acts first (a scripted caller)
        if self._events or brain_owes(self.core):
            return timeout
        left = warp.quiet_left()
        if left > 0:
            return min(timeout, left)
        warp.skip(timeout)
        return 0.0

    async def _pump(self) -> bool:
        """Feed playout progress and due timers into the core until nothing more is due; on a
        warp clock, one word at a time (see _released_to): True when it stopped at a word."""
        keeps = self.recorder.keeps_events
        for _ in range(PUMP_LIMIT):
            now = self.now()
            effects: list[Effect] = []
            word = False
            for played in self.playout.advance(self._released_to(now)):
                if isinstance(played, WordPlayed):
                    word = True
                    self.words_played += 1
                if keeps and not isinstance(played, AudioMark):
                    self.recorder.event(now, _kind(played), asdict(played))
                effects += feed_played(self.core, played, now)
            effects += self.core.tick(now)
            if not effects:
                return False
            await self._carry(effects)
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

    async def _carry(self, effects: list[Effect]) -> None:
        now = self.now()
        keeps = self.recorder.keeps_events  # else an event's data is built for nobody
        for effect in effects:
            if keeps and not isinstance(effect, WireEffect | UnitChanged) and _recorded(effect):
                # A frame is recorded as it crosses; a redraw's reason is in the frames.
                self.recorder.event(now, _kind(effect), asdict(effect))
            # Each effect to its one port, in the order the core returned them.
            if isinstance(effect, WireEffect):
                await self._send(effect.env)
            elif isinstance(effect, PlayoutEffect):
                play(effect, now, self.playout)
            elif isinstance(effect, ListenEffect):
                if self.listening is not None:  # a simulated call has no recognizer
                    listen(effect, self.listening)
            elif isinstance(effect, ScreenEffect):
                for show in self.on_screen:
                    show(effect)
            else:
                assert_never(effect)
            for listener in self.on_effect:
                listener(effect)
        # The call record's findings are worked out over the whole call so far, longer the
        # longer the call: never while the brain owes an answer, so a caller's turn goes
        # out and its answer comes in without waiting for them (they follow right after).
        if effects and not self.core.awaiting_brain:
            self.recorder.follow(self.core, now)

    async def _send(self, env: pb.Envelope) -> None:
        payload = encode(env)
        self._record("out", env, payload)
        if self.warp is not None:
            self.warp.brain_io()
        if self.relay:
            payload = frame_relay(self.core.session_id, payload)
        try:
            await self.conn.send(payload)
        except ConnectionClosed as exc:
            self._closed(closed_words(exc))

    def _record(
        self, direction: str, env: pb.Envelope, raw: bytes, surplus: SurplusFrame | None = None
    ) -> bool:
        """Record a frame as it crosses; False: past a sample, it was only counted."""
        if self.warp is not None:
            self.warp.frame(direction, env)
        kept = self.recorder.frame(direction, env, self.now(), raw, surplus)
        if kept is not None:
            self._show(kept)
        return kept is not None

    def _show(self, record: FrameRecord) -> None:
        for listener in self.on_frame:
            listener(record)

    async def _read(self) -> None:
        counted = 0
        try:
            async for message in self.conn:
                if self.core.ended is not None:
                    # The call is closing: read on to the close, but only count what a brain
                    # streaming past the end sends, and let the close go on between them
                    # (messages already buffered are read without the loop turning).
                    if not self.recorder.count_past_sample(Surplus.AFTER_END, self.now()):
                        self._receive(message)
                    await asyncio.sleep(0)
                    continue
                while (
                    self._waiting
                    and self.core.ended is None  # it ended while the reader waited: read on
                    and (
                        len(self._waiting) >= MAX_WAITING_FRAMES
                        or sum(self._waiting) >= MAX_WAITING_BYTES
                    )
                ):
                    self._taken.clear()
                    await self._taken.wait()
                if not self._receive(message):
                    continue
                counted += 1
                if counted % MAX_WAITING_FRAMES == 0:
                    # Frames only counted wait for nothing, and buffered ones are read without
                    # the loop turning: the call goes on between them.
                    await asyncio.sleep(0)
        except ConnectionClosed as exc:
            self._closed(closed_words(exc))
            return
        self._closed("the brain closed the connection")

    def _closed(self, words: str) -> None:
        self.post(lambda now: self.core.brain_closed(words, now))

    def _receive(self, message: str | bytes) -> bool:
        """Record a message from the brain and hand it to the core; True when it was only
        counted (see _counted)."""
        if self.warp is not None:
            self.warp.brain_io(incoming=True)
        try:
            payload = message
            if self.relay:
                sid, payload = unframe_relay(message)
                if sid != self.core.session_id:
                    raise WireError(f"relay frame for another session ({sid})")
            env = decode(payload)
        except WireError as exc:
            detail = str(exc)
            kept = self.recorder.undecodable("in", detail, message, self.now())
            if kept is not None:  # past the first few, malformed frames are only counted
                self._show(kept)
            if self.core.ended is None:
                self._post_frame(len(message), lambda now: self.core.brain_malformed(detail, now))
            return False
        assert isinstance(payload, bytes)  # decode() refuses a text message
        surplus = self.core.surplus(env, starts_waiting=self._starts_waiting > 0)
        recorded = self._record("in", env, payload, surplus)
        if surplus is not None and not recorded and not surplus.handled:
            self._counted(surplus, env)
            return True
        if self.core.ended is None:  # an ended call takes nothing more: none waits for it
            opens = env.HasField("speech_start")
            self._starts_waiting += opens

            def handled(now: int) -> list[Effect]:
                self._starts_waiting -= opens
                return self.core.from_brain(env, now)

            self._post_frame(len(payload), handled)
        return False

    def _counted(self, surplus: SurplusFrame, env: pb.Envelope) -> None:
        """A frame the call has no use for, past its sample, is not handled one by one: the
        core hears how much text such frames of a unit held, in one event for all that
        arrive before it is taken (so a brain streaming for ever costs the call its reading
        alone, and keeps pace with it, its pings' answers too)."""
        sid = surplus.speech_id
        if surplus.kind is Surplus.AFTER_END or self.core.ended is not None:
            return  # nothing left to learn from it
        chars = len(env.speech_chunk.text) if env.HasField("speech_chunk") else 0
        if sid in self._counted_chars:
            self._counted_chars[sid] += chars
            return
        self._counted_chars[sid] = chars

        def taken(now: int) -> list[Effect]:
            return self.core.counted(sid, self._counted_chars.pop(sid), now)

        self.post(taken)

    def _post_frame(self, size: int, event: CoreEvent) -> None:
        """Queue a frame's event; running it makes room for the reader's next frame."""
        self._waiting.append(size)

        def taken(now: int) -> list[Effect]:
            self._waiting.remove(size)
            self._taken.set()
            return event(now)

        self.post(taken)


def _recorded(effect: Effect) -> bool:
    """Whether an effect is kept as an event of the stored call: not an RTVI frame past the
    call's cap (it crossed to the app, and is counted)."""
    return not isinstance(effect, ToApp) or effect.recorded


def _kind(what: object) -> str:
    """An event's kind in the stored session: its class name in snake case."""
    name = type(what).__name__
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")


def _abort(conn: BrainLink) -> None:
    """Drop a WebSocket link's connection without its closing handshake (a link to a brain
    in this process has no transport: its close does not wait on the brain)."""
    transport = getattr(conn, "transport", None)
    if isinstance(transport, asyncio.WriteTransport):
        transport.abort()


def _resolve(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


def _timed_out(wakeup: asyncio.Future[bool]) -> None:
    if not wakeup.done():
        wakeup.set_result(False)


def _holds(predicate: Callable[[], bool]) -> bool:
    """Whether a waiter's predicate holds; one that raises is woken to raise it itself."""
    try:
        return predicate()
    except Exception:
        return True


def _nothing(_now: int) -> list[Effect]:
    """A wake-up for the loop: it drains the playout after every event."""
    return []
