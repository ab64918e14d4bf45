"""A Locust user class placing ``sandbox load``'s simulated calls, for runs beyond one machine.

Locust runs the users and spreads them over machines (``--master`` / ``--worker``); each
user places one call after another: the caller script through the real call core and
codec (:func:`sandbox.load.one_call.place_call`), each call on its own clock. Locust's
statistics get, per call:

* ``first chunk`` requests: each turn's first-chunk latency, as the request time;
* ``Finalize`` requests: each unit's Finalize latency (see :mod:`sandbox.load.latency_watch`);
* a ``wire rules`` request, failed with the rules the call broke, if any;
* a ``call`` request, the call's wall time, failed with its error codes, if any.

One machine::

    locust -f "$(python -c 'import sandbox.load.locust as m; print(m.__file__)')" \\
        --headless -u 1000 -r 50 --host ws://127.0.0.1:8765/brain

Several: the same file with ``--master`` on one machine and ``--worker --master-host H`` on
each other (Locust ships the file to them). The calls are not saved as sessions.

Locust runs on gevent, which patches the standard library; the calls run on one asyncio
event loop in a thread of its own per process, and each user waits for its call without
blocking the others. Options: ``--caller-script FILE`` (default: the built-in caller) and
``--caller-step-timeout S``.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import gevent
import gevent.event
from gevent import monkey
from locust import User, constant, events, task
from locust.argument_parser import LocustArgumentParser
from locust.env import Environment

from sandbox.caller.script import load_script
from sandbox.caller.script_runner import STEP_TIMEOUT_S
from sandbox.load.call_result import CallResult
from sandbox.load.one_call import DEFAULT_SCRIPT, Target, place_call

T = TypeVar("T")
_REQUEST_TYPE = "sandbox"


class WireRulesBroken(Exception):
    """A call's frames broke the wire contract: Locust counts it as a failure."""


class CallFailed(Exception):
    """A call ended in an error (its codes): Locust counts it as a failure."""


class _CallLoop:
    """One asyncio loop in a native thread: gevent's patched ``threading`` would make it a
    greenlet, and the calls' sockets would then wait on gevent's hub, not asyncio's."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        native = monkey.get_original("threading", "Thread")
        native(target=self.loop.run_forever, name="sandbox-calls", daemon=True).start()

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        """Run ``work`` on the loop; only the calling greenlet waits for it."""
        future = asyncio.run_coroutine_threadsafe(work, self.loop)
        done = gevent.event.AsyncResult()
        wake = gevent.get_hub().loop.async_()  # thread-safe: its send() wakes this hub
        wake.start(lambda: done.set(None))
        future.add_done_callback(lambda _f: wake.send())
        try:
            done.get()
        finally:
            wake.close()
        return future.result()


_LOOP: _CallLoop | None = None
_LOOP_LOCK = threading.Lock()
_NUMBERS = itertools.count()


def _calls() -> _CallLoop:
    global _LOOP
    with _LOOP_LOCK:
        if _LOOP is None:
            _LOOP = _CallLoop()
        return _LOOP


def _options(parser: LocustArgumentParser) -> None:
    parser.add_argument(
        "--caller-script",
        default=str(DEFAULT_SCRIPT),
        help="the caller script (TOML) every call plays",
    )
    parser.add_argument(
        "--caller-step-timeout",
        type=float,
        default=STEP_TIMEOUT_S,
        help="seconds a script step waits with no sign of life from the bot before it gives up",
    )


events.init_command_line_parser.add_listener(_options)  # type: ignore[no-untyped-call]


class SandboxCaller(User):
    """One simulated caller: places a call, and another as soon as it ends. The brain is
    Locust's ``--host`` (ws://…; its relay ``/agent`` is not used: one socket per call)."""

    wait_time = constant(0)

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        options = environment.parsed_options
        script = Path(options.caller_script) if options is not None else DEFAULT_SCRIPT
        timeout = options.caller_step_timeout if options is not None else STEP_TIMEOUT_S
        if not self.host:
            raise ValueError("name the brain with --host ws://host:port/brain")
        self._target = Target(self.host, load_script(script), record=False, step_timeout_s=timeout)

    @task
    def call(self) -> None:
        """One call, its figures into Locust's statistics."""
        began = time.perf_counter()
        result = _calls().run(place_call(next(_NUMBERS), self._target))
        self._report(result, (time.perf_counter() - began) * 1000)

    def _report(self, result: CallResult, wall_ms: float) -> None:
        for name, values in (
            ("first chunk", result.first_chunk_ms),
            ("Finalize", result.finalize_ms),
        ):
            for ms in values:
                self._fire(name, ms, None)
        rules = WireRulesBroken("; ".join(result.rules)) if result.findings else None
        self._fire("wire rules", 0.0, rules)
        self._fire("call", wall_ms, CallFailed(", ".join(result.errors)) if result.errors else None)

    def _fire(self, name: str, ms: float, failure: Exception | None) -> None:
        """One request in Locust's statistics: a time, and a failure or None."""
        self.environment.events.request.fire(
            request_type=_REQUEST_TYPE,
            name=name,
            response_time=ms,
            response_length=0,
            exception=failure,
        )
