"""BrainConnection: one session of the wire from the brain's end, with no socket in it.

A transport (the websockets server, or an in-process driver) hands every envelope
from Voqalize to :meth:`BrainConnection.feed` and gives the connection an async
``send`` for the envelopes going back. Inside:

* **One consumer** dispatches frames to the brain one at a time, in arrival order.
  Interruption and Cancel ride a priority lane that overtakes everything queued, but
  never the callback already running.
* **Speaking callbacks run as tasks** beside the consumer, one per stimulus. A newer
  stimulus does not stop an older turn's task: it goes on unless an Interruption
  covers its turn, and its speech names its own turn. Units never interleave on the
  wire — a second task waits at its SpeechStart until the open unit closes.
* **The watermark** is ``max(watermark, through_turn)``. Tasks of turns at or below it
  are cancelled and their generators closed with ``aclose()``, so ``finally`` runs;
  their chunks still queued are dropped by the writer. A stimulus whose turn is
  already dead when its frame is dispatched still reaches its callback (the brain
  learns what the caller said), but the callback is stopped at its first yield and
  nothing it says reaches the wire.
* **Responses and Finalizes resolve their waiters on arrival**, so ``await
  session.configure(...)`` inside a callback never waits on the consumer it blocks.
  ``on_finalize`` itself is dispatched in order with everything else.

* **The brain's End is a graceful close.** ``session.end()`` sends End and nothing more
  goes out, but the session stays open: Voqalize plays out what the brain relayed and
  sends the Finalizes it owes, which reach ``on_finalize`` in order, until Voqalize
  closes the socket at the call's end (or END_WAIT_S passes: a Voqalize that vanished
  never holds a brain process).

Malformed or unexpected input is logged and, once the session is established,
answered with a non-fatal Error (MALFORMED or PROTOCOL); nothing from the peer raises
out of :meth:`feed`.
"""

from __future__ import annotations

import asyncio
import enum
import inspect
import json
import logging
from collections.abc import AsyncIterator, Callable, Coroutine, MutableMapping
from typing import Any

from sandbox.sdk.brain import Brain
from sandbox.sdk.control import Control
from sandbox.sdk.events import Error, RTVIFrame, UserIdle, UserMessage
from sandbox.sdk.lanes import Lanes
from sandbox.sdk.outbox import Outbox, Send
from sandbox.sdk.session import Session, decode_init
from sandbox.sdk.speaker import Speaker
from sandbox.sdk.speech import Speech, SpeechChunk, SpeechEnd, SpeechStart
from sandbox.sdk.turns import Turns
from sandbox.sdk.units import Units
from sandbox.wire import WIRE_VERSION, catalog, pb
from sandbox.wire.codec import body_name, unknown_arms
from sandbox.wire.dial import PING_INTERVAL_S, PING_TIMEOUT_S

_LOG = logging.getLogger("sandbox.sdk")

#: How long teardown waits for the brain's tasks (their ``finally``) and the writer.
STOP_GRACE_S = 5.0
#: How long, after the brain's End, the session waits for Voqalize to close it (which it
#: does once what was relayed has played out and every unit has its Finalize): the
#: keepalive's bound, by which a Voqalize that stopped answering has been given up anyway.
END_WAIT_S = PING_INTERVAL_S + PING_TIMEOUT_S


class _Mark(enum.Enum):
    FINALIZES = "finalizes"  # a unit's report is in: deliver what is deliverable, in order
    CLOSED = "closed"  # the transport closed after the brain's End: stop, after what came first


_Item = pb.Envelope | Error | _Mark


class _SessionLog(logging.LoggerAdapter[logging.Logger]):
    def process(
        self, msg: Any, kwargs: MutableMapping[str, Any]
    ) -> tuple[Any, MutableMapping[str, Any]]:
        return f"[{self.extra['session'] if self.extra else '?'}] {msg}", kwargs


class BrainConnection:
    """Hosts one brain instance for one session over any transport.

    Construct it inside a running event loop with the brain and an async ``send``;
    call :meth:`feed` with each envelope from Voqalize, :meth:`report_malformed` for a
    message the transport could not decode, and :meth:`close` when the transport is
    gone. :meth:`wait_closed` returns once the session is over (Voqalize's End or Cancel,
    a fatal Error, a refused version; after the brain's End, the close that follows it or
    ``end_wait_s``) and everything queued was written.
    """

    def __init__(
        self,
        brain: Brain,
        send: Send,
        *,
        session_id: str | None = None,
        logger: logging.Logger | None = None,
        end_wait_s: float = END_WAIT_S,
    ) -> None:
        """``session_id``: the session the transport expects (from the dial URL or relay
        prefix); a SessionStart naming another is refused. ``end_wait_s``: how long after
        the brain's End the session waits for Voqalize to close it."""
        self._brain = brain
        self._expected_session_id = session_id
        self._log = _SessionLog(logger or _LOG, {"session": session_id or "?"})
        self._lanes: Lanes[_Item] = Lanes()
        self._turns = Turns()
        self._units = Units(on_ready=lambda: self._lanes.put(_Mark.FINALIZES))
        self._outbox = Outbox(send, self._turns, self._units, self._on_broken, self._log)
        self._control = Control()
        self._session: Session | None = None
        self._started = False  # SessionStart has arrived
        self._established = False  # ... and was accepted: frames may flow back
        self._tasks: dict[asyncio.Task[None], int] = {}
        self._stopping: asyncio.Task[None] | None = None
        self._end_wait_s = end_wait_s
        #: Set once the brain's End went out: the wait for Voqalize's close, bounded.
        self._ending: asyncio.Task[None] | None = None
        self._closed = asyncio.Event()
        self._writer = asyncio.create_task(self._outbox.run())
        self._consumer = asyncio.create_task(self._consume())

    @property
    def brain(self) -> Brain:
        """The brain this connection hosts."""
        return self._brain

    @property
    def session(self) -> Session | None:
        """The session, once SessionStart has been accepted."""
        return self._session

    @property
    def closed(self) -> bool:
        """The session is over and the connection has stopped."""
        return self._closed.is_set()

    async def feed(self, env: pb.Envelope) -> None:
        """Take one envelope from Voqalize. Never raises for anything the peer sent."""
        if self._stopping is not None:
            self._log.debug("%s after the session ended: ignored", env.WhichOneof("body"))
            return
        arm = env.WhichOneof("body")
        if arm is None:
            arms = unknown_arms(env)
            if arms:  # added within the version by a newer Voqalize: skipped, never refused
                self._log.info("skipped an envelope arm this SDK does not know: %s", arms)
            else:
                self.report_malformed("an envelope with no body")
            return
        if not self._started:
            if arm != "session_start":
                self._log.warning("%s before SessionStart: dropped (Voqalize speaks first)", arm)
                return
            self._started = True
            self._lanes.put(env)
        elif arm == "session_start":
            self._complain(pb.ERROR_CODE_PROTOCOL, "a second SessionStart on one session: dropped")
        elif arm in ("interruption", "cancel"):
            self._lanes.put(env, urgent=True)
        elif arm == "finalize":
            self._take_finalize(env.finalize)
        elif arm == "response":
            if not self._control.answer(env.response):
                self._complain(
                    pb.ERROR_CODE_PROTOCOL,
                    f"Response for request_id {env.response.request_id}, which this brain "
                    "never sent or was already answered: dropped",
                )
        elif arm in catalog.BRAIN_ARMS:  # one arriving at a brain is a broken peer
            self._complain(
                pb.ERROR_CODE_PROTOCOL,
                f"{arm} is a brain-to-Voqalize frame; a brain never receives one: dropped",
            )
        else:
            self._lanes.put(env)

    def report_malformed(self, reason: str) -> None:
        """The transport got a message that is not an envelope: log it and tell Voqalize."""
        self._complain(pb.ERROR_CODE_MALFORMED, f"malformed frame dropped: {reason}")

    async def close(self) -> None:
        """The transport is gone: stop everything (the brain's ``finally`` blocks run). After
        the brain's End it is the close that End asked for: what arrived before it (the
        Finalizes Voqalize sent) is handled first."""
        if self._ending is not None and self._stopping is None:
            self._lanes.put(_Mark.CLOSED)
        else:
            self._shut_down(flush=False)
        await self.wait_closed()

    async def wait_closed(self) -> None:
        """Return once the session is over and the connection has stopped."""
        await self._closed.wait()

    # -- arrival-time handling ------------------------------------------------------

    def _take_finalize(self, msg: pb.Finalize) -> None:
        unit = self._units.get(msg.speech_id)
        if unit is None or not unit.on_wire:
            self._complain(
                pb.ERROR_CODE_PROTOCOL,
                f"Finalize for speech_id {msg.speech_id}, a unit this brain never opened "
                "on the wire: dropped",
            )
            return
        fin = self._units.resolve(unit, msg.heard_text)
        if fin is None:
            self._complain(
                pb.ERROR_CODE_PROTOCOL,
                f"a second Finalize for speech_id {msg.speech_id}: dropped",
            )
        elif not fin.generated.startswith(fin.heard):
            self._log.warning(
                "Finalize for unit %d: heard %r is not a prefix of the unit's text %r",
                fin.speech_id,
                fin.heard,
                fin.generated,
            )

    # -- the consumer ----------------------------------------------------------------

    async def _consume(self) -> None:
        while True:
            item = await self._lanes.get()
            try:
                await self._handle(item)
            except Exception:
                self._log.exception("SDK failure while handling %r", item)

    async def _handle(self, item: _Item) -> None:
        if item is _Mark.FINALIZES:
            for fin in self._units.pop_ready():
                await self._call("on_finalize", self._brain.on_finalize(self._require(), fin))
        elif item is _Mark.CLOSED:
            self._shut_down(flush=False)
        elif isinstance(item, Error):
            await self._call_on_error(item)
        elif isinstance(item, pb.Envelope):
            await self._dispatch(item)

    async def _dispatch(self, env: pb.Envelope) -> None:
        arm = body_name(env)
        if arm == "session_start":
            await self._start(env.session_start)
        elif arm == "interruption":
            self._interrupt(env.interruption.through_turn)
        elif arm == "cancel":
            self._log.info("Voqalize cancelled the session: %s", env.cancel.reason or "no reason")
            self._shut_down(flush=False)
        elif self._session is None:
            self._log.debug("%s while the session is not established: ignored", arm)
        elif arm == "user_message":
            msg = UserMessage(text=env.user_message.text)
            session = self._session
            self._begin_turn(
                env.user_message.turn_id,
                "on_user_message",
                lambda: self._brain.on_user_message(session, msg),
            )
        elif arm == "user_idle":
            idle = UserIdle(level=env.user_idle.level, idle_ms=env.user_idle.idle_ms)
            session = self._session
            self._begin_turn(
                env.user_idle.turn_id,
                "on_user_idle",
                lambda: self._brain.on_user_idle(session, idle),
            )
        elif arm == "rtvi":
            await self._rtvi(env.rtvi)
        elif arm == "error":
            await self._error(env.error)
        elif arm == "end":
            self._log.info("Voqalize ended the session")
            self._shut_down(flush=False)

    async def _start(self, msg: pb.SessionStart) -> None:
        if msg.wire_version != WIRE_VERSION:
            self._refuse(
                pb.ERROR_CODE_VERSION,
                f"this brain speaks wire version {WIRE_VERSION} and Voqalize offered version "
                f"{msg.wire_version}; the versions must be equal, so the session is refused",
            )
            return
        if self._expected_session_id is not None and msg.session_id != self._expected_session_id:
            self._refuse(
                pb.ERROR_CODE_PROTOCOL,
                f"SessionStart names session {msg.session_id!r} but this connection was "
                f"dialled for {self._expected_session_id!r}; the session is refused",
            )
            return
        init, complaint = decode_init(msg.init)
        if complaint:
            self._log.warning("%s", complaint)
        if self._expected_session_id is None:
            self._log.extra = {"session": msg.session_id}
        session = Session(
            session_id=msg.session_id,
            init=init,
            wire_version=msg.wire_version,
            capabilities=frozenset(msg.capabilities),
            turns=self._turns,
            units=self._units,
            outbox=self._outbox,
            control=self._control,
            hang_up=self._hang_up,
            log=self._log,
        )
        self._session = session
        self._established = True
        turn = msg.turn_id or 1
        self._turns.mint(turn)
        self._log.info("session started (capabilities %s)", sorted(session.capabilities))
        await self._greet(session, turn)
        await self._call("on_session_start", self._brain.on_session_start(session))

    async def _greet(self, session: Session, turn: int) -> None:
        try:
            line = await self._brain.greet(session)
        except Exception as exc:
            self._failed("greet", exc)
            return
        if line is None or line == "":
            return
        if not isinstance(line, str):
            self._mistake(f"greet returned {line!r}; it must return a str or None")
            return
        speaker = Speaker(turn, self._units, self._outbox, self._mistake, "greet")
        for item in (SpeechStart(), SpeechChunk(line), SpeechEnd()):
            await speaker.take(item)

    def _interrupt(self, through_turn: int) -> None:
        if not self._turns.interrupt(through_turn):
            self._log.debug(
                "Interruption through %d: watermark already %d", through_turn, self._turns.watermark
            )
            return
        self._log.info("interruption: turns up to %d are dead", through_turn)
        for task, turn in list(self._tasks.items()):
            if self._turns.dead(turn):
                task.cancel()

    async def _rtvi(self, msg: pb.RTVIFrame) -> None:
        name = catalog.RTVI_NAME_BY_TYPE.get(msg.type, str(msg.type))
        if msg.type not in catalog.APP_RTVI_TYPES:
            self._complain(
                pb.ERROR_CODE_PROTOCOL,
                f"RTVI type {name!r} does not cross from the app to a brain: dropped",
            )
            return
        try:
            data = json.loads(msg.data) if msg.data else None
        except ValueError as exc:
            self._complain(
                pb.ERROR_CODE_MALFORMED, f"RTVI {name} data is not JSON ({exc}): dropped"
            )
            return
        frame = RTVIFrame(type=name, data=data, id=msg.id if msg.HasField("id") else None)
        await self._call("on_rtvi", self._brain.on_rtvi(self._require(), frame))

    async def _error(self, msg: pb.Error) -> None:
        code = pb.ErrorCode.Name(msg.code) if msg.code in pb.ErrorCode.values() else str(msg.code)
        err = Error(
            code=code.removeprefix("ERROR_CODE_"),
            message=msg.message,
            fatal=msg.fatal,
            origin="voqalize",
        )
        self._log.log(
            logging.ERROR if err.fatal else logging.WARNING,
            "Voqalize reports %s%s: %s",
            err.code,
            " (fatal)" if err.fatal else "",
            err.message,
        )
        await self._call_on_error(err)
        if err.fatal:
            self._shut_down(flush=False)

    # -- turns -------------------------------------------------------------------------

    def _begin_turn(
        self, turn_id: int, where: str, start: Callable[[], AsyncIterator[Speech]]
    ) -> None:
        if not self._turns.mint(turn_id):
            self._complain(
                pb.ERROR_CODE_PROTOCOL,
                f"turn {turn_id} does not follow turn {self._turns.latest}: "
                "the stimulus is dropped",
            )
            return
        task = asyncio.create_task(
            self._run_turn(turn_id, where, start), name=f"{where} turn {turn_id}"
        )
        self._tasks[task] = turn_id
        task.add_done_callback(self._tasks.pop)

    async def _run_turn(
        self, turn_id: int, where: str, start: Callable[[], AsyncIterator[Speech]]
    ) -> None:
        Turns.enter(turn_id)
        try:
            gen: Any = start()
        except Exception as exc:
            self._failed(where, exc)
            return
        if not inspect.isasyncgen(gen):
            if inspect.iscoroutine(gen):
                gen.close()
            self._mistake(
                f"{where} must be an async generator (an `async def` that yields speech); "
                f"it returned {type(gen).__name__}",
            )
            return
        speaker = Speaker(turn_id, self._units, self._outbox, self._mistake, where)
        try:
            while True:  # a dead turn still reaches its first yield: see the module doc
                try:
                    item = await gen.__anext__()
                except StopAsyncIteration:
                    break
                await speaker.take(item)
                if self._turns.dead(turn_id):
                    break
        except Exception as exc:
            self._failed(where, exc)
        finally:
            speaker.close()
            await self._close_generator(gen, where)

    async def _close_generator(self, gen: Any, where: str) -> None:
        try:
            await gen.aclose()
        except RuntimeError as exc:  # e.g. it yielded again instead of closing
            self._mistake(f"{where} did not stop when asked: {exc}")
        except Exception as exc:
            self._failed(f"{where} (while closing)", exc)

    # -- reporting -------------------------------------------------------------------------

    def _complain(self, code: pb.ErrorCode, message: str) -> None:
        """Something the peer sent was wrong: log it, and tell the peer once it may be told."""
        self._log.warning("%s: %s", pb.ErrorCode.Name(code).removeprefix("ERROR_CODE_"), message)
        if self._established:
            self._outbox.put(pb.Error(code=code, message=message, fatal=False))

    def _mistake(self, message: str) -> None:
        """The brain did something the SDK refused: log it and tell ``on_error``."""
        self._log.warning("%s", message)
        self._lanes.put(Error(code="PROTOCOL", message=message, origin="sdk"))

    def _failed(self, where: str, exc: Exception) -> None:
        """A brain callback raised: log the traceback, tell Voqalize and ``on_error``."""
        message = f"{where} raised {type(exc).__name__}: {exc}"
        self._log.error("%s", message, exc_info=exc)
        if self._established:
            self._outbox.put(pb.Error(code=pb.ERROR_CODE_INTERNAL, message=message, fatal=False))
        if where != "on_error":
            self._lanes.put(Error(code="INTERNAL", message=message, origin="sdk"))

    async def _call(self, where: str, call: Coroutine[Any, Any, None]) -> None:
        try:
            await call
        except Exception as exc:
            self._failed(where, exc)

    async def _call_on_error(self, err: Error) -> None:
        if self._session is not None:
            await self._call("on_error", self._brain.on_error(self._session, err))

    def _require(self) -> Session:
        assert self._session is not None, "dispatched before SessionStart was accepted"
        return self._session

    # -- the end -----------------------------------------------------------------------

    def _refuse(self, code: pb.ErrorCode, message: str) -> None:
        self._log.error("%s", message)
        self._outbox.put(pb.Error(code=code, message=message, fatal=True))
        self._outbox.put(pb.End())
        self._shut_down(flush=True)

    def _hang_up(self) -> None:
        """The brain's End: it goes out and nothing after it; the speaking callbacks stop
        (nothing they say could be sent), and the session waits for Voqalize's close."""
        if self._stopping is None and self._ending is None:
            self._log.info("the brain ended the session: waiting for Voqalize to close it")
            self._outbox.put(pb.End())
            self._outbox.close(flush=True)
            for task in self._tasks:
                task.cancel()
            self._ending = asyncio.create_task(self._wait_for_close())

    async def _wait_for_close(self) -> None:
        await asyncio.sleep(self._end_wait_s)
        self._log.warning(
            "Voqalize did not close the session within %g s of the brain's End: closing it",
            self._end_wait_s,
        )
        self._shut_down(flush=True)

    def _on_broken(self, exc: BaseException) -> None:
        self._log.warning("cannot send to Voqalize (%s): the session is over", exc)
        self._shut_down(flush=False)

    def _shut_down(self, *, flush: bool) -> None:
        if self._stopping is None:
            self._outbox.close(flush=flush)  # after the brain's End it is closed, End queued
            if self._ending is not None and self._ending is not asyncio.current_task():
                self._ending.cancel()
            self._stopping = asyncio.create_task(self._wind_down())

    async def _wind_down(self) -> None:
        tasks = [self._consumer, *self._tasks]
        for task in tasks:
            task.cancel()
        self._control.abandon()
        _, stuck = await asyncio.wait(tasks, timeout=STOP_GRACE_S)
        if stuck:
            self._log.warning("%d callback(s) did not stop within %.0f s", len(stuck), STOP_GRACE_S)
        unreported = self._units.abandon()
        if unreported:
            self._log.info("%d unit(s) ended without a Finalize", unreported)
        try:
            await asyncio.wait_for(self._writer, timeout=STOP_GRACE_S)
        except TimeoutError:
            self._log.warning("frames still unsent after %.0f s were dropped", STOP_GRACE_S)
        self._log.info("session over")
        self._closed.set()
