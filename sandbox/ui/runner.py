"""Runs one call beside the UI, on the call's own thread, and tells the app what happens, as
messages (Textual's ``post_message`` may be called from any thread). Everything here but
:meth:`CallRunner.tell`, :meth:`CallRunner.ask`, :meth:`CallRunner.drawn` and
:meth:`CallRunner.take_frames` runs on the call's thread; what a message carries of the call
is frozen there (:mod:`sandbox.call.snapshot`).

Gets the call up (audio, the built-in brain when none was named, dialing), runs the
host until the call ends, and writes the report in a ``finally`` so it exists however
the call ended. Nothing raised here reaches the terminal: failures become words in
:class:`~sandbox.ui.messages.CallFinished`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from textual.message import Message
from textual.message_pump import MessagePump

from sandbox.call.core import CallCore
from sandbox.call.effects import ScreenEffect, UnitChanged
from sandbox.call.units import UnitView
from sandbox.errors import UserError
from sandbox.harness.builtin import brain_url_for
from sandbox.host.launch import CallNotPlaced, CallOptions, open_call
from sandbox.host.session import CallHost
from sandbox.logs import log_path
from sandbox.record.record_text import record_lines
from sandbox.record.recorder import FrameRecord, Recorder, default_report_path
from sandbox.ui.audio import AudioFrontend
from sandbox.ui.call_thread import CallThread
from sandbox.ui.messages import (
    CallEffect,
    CallFinished,
    CallFrames,
    CallProgress,
    CallStarted,
    DeviceLost,
    RecordingStopped,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

#: The most frames waiting for the app to show them: a brain flooding the wire faster than
#: the screen can draw is shown by its latest frames (the store keeps every one).
MAX_FRAMES_WAITING = 500


@dataclass(frozen=True)
class CallSetup:
    """What the app needs to place its call. ``clock`` is the host's (tests may freeze it)."""

    options: CallOptions
    audio: AudioFrontend
    report_path: Path | None = None
    clock: Callable[[], float] = time.monotonic


class CallRunner:
    """Places the call described by ``setup`` and posts its progress to ``target``."""

    def __init__(self, setup: CallSetup, target: MessagePump) -> None:
        self.setup = setup
        self.host: CallHost | None = None
        self.report: Path | None = None
        self.problem: str | None = None
        self.record: list[str] = []
        #: Every unit as the call left it (set on the call's thread before CallFinished).
        self.units: tuple[UnitView, ...] = ()
        #: Set once the call is over and its report written (on the call's thread).
        self.done = threading.Event()
        self.thread = CallThread()
        self._target = target
        self._frames: deque[FrameRecord] = deque(maxlen=MAX_FRAMES_WAITING)
        # Both only on the call's thread: units whose redraw is posted and not yet drawn,
        # and those of them that changed since their view was taken.
        self._redraws: set[int] = set()
        self._stale: set[int] = set()

    def _post(self, message: Message) -> None:
        self._target.post_message(message)

    async def run(self) -> None:
        """The whole call, on its own thread (:mod:`sandbox.ui.call_thread`); returns once it
        is over and the report is written."""
        await self.thread.run(self._whole_call)

    def tell(self, action: Callable[..., object], *args: Any) -> None:
        """Run ``action(*args)`` on the call's thread (a host method: the call is told)."""
        self.thread.tell(action, *args)

    async def ask(self, question: Coroutine[Any, Any, T]) -> T:
        """Await ``question`` (a host coroutine) on the call's thread."""
        return await self.thread.ask(question)

    async def _whole_call(self) -> None:
        try:
            self.report = await self._call()
        except UserError as exc:
            self.problem = str(exc)
        except Exception as exc:  # the UI shows words; the traceback goes to the log file
            log.exception("the call failed")
            self.problem = (
                f"the call failed unexpectedly: {type(exc).__name__}: {exc}. "
                f"The details are in {log_path()}; please report them."
            )
        finally:
            self.done.set()
            self._post(CallFinished(self.report, self.problem, self.record))

    async def _call(self) -> Path | None:
        setup = self.setup
        audio = setup.audio
        try:
            await audio.prepare(lambda text: self._post(CallProgress(text)))
            self._post(CallProgress(_starting(setup.options)))
            async with brain_url_for(setup.options) as url:
                self._post(CallProgress(f"dialing {url} …"))
                try:
                    host = await open_call(
                        setup.options,
                        url,
                        audio.playout,
                        audio.capabilities(),
                        clock=setup.clock,
                        listening=audio.listening,
                    )
                except CallNotPlaced as failed:
                    self.report = self._write(failed.core, failed.recorder)
                    raise
                return await self._run(host)
        finally:
            await audio.close()

    async def _run(self, host: CallHost) -> Path:
        self.host = host
        if host.recorder.writer is not None:  # told from the writer's thread; posting is safe
            host.recorder.writer.on_failure = lambda words: self._post(RecordingStopped(words))
        host.on_screen.append(lambda effect: self._effect(effect, host))
        host.on_frame.append(self._frame)
        self._post(CallStarted(host, host.latest))
        try:
            await self.setup.audio.start(
                host,
                lambda words: self._post(DeviceLost(words)),
            )
            await host.run()
        finally:
            # The units whose last change waits on a draw the app may now never report.
            for speech_id in sorted(self._stale):
                self._redraw(speech_id, host)
            self._stale.clear()
            self.units = tuple(host.unit_views())
            path = self._write(host.core, host.recorder, host.now())
        return path

    def _effect(self, effect: ScreenEffect, host: CallHost) -> None:
        """Post an effect to the app, with the call as it stands. A unit's redraw is posted
        once until the app draws it, so a flood of chunks is one redraw, not one message per
        chunk; a change meanwhile is posted once that draw is done (see :meth:`drawn`)."""
        if isinstance(effect, UnitChanged):
            if effect.speech_id in self._redraws:
                self._stale.add(effect.speech_id)
            else:
                self._redraw(effect.speech_id, host)
            return
        self._post(CallEffect(effect, host.now(), host.latest))

    def _redraw(self, speech_id: int, host: CallHost) -> None:
        """Post a unit's redraw with its view as it stands."""
        self._redraws.add(speech_id)
        unit = host.unit_view(speech_id)
        self._post(CallEffect(UnitChanged(speech_id), host.now(), host.latest, unit))

    def drawn(self, speech_id: int) -> None:
        """From the app's thread: it drew this unit's redraw. On the call's thread, its next
        change posts again, and one made meanwhile is posted now."""
        self.tell(self._drawn, speech_id)

    def _drawn(self, speech_id: int) -> None:
        self._redraws.discard(speech_id)
        host = self.host
        if speech_id in self._stale and host is not None:
            self._stale.discard(speech_id)
            self._redraw(speech_id, host)

    def _frame(self, record: FrameRecord) -> None:
        """Frames wait in one batch; the message is posted when the batch starts."""
        self._frames.append(record)
        if len(self._frames) == 1:
            self._post(CallFrames())

    def take_frames(self) -> list[FrameRecord]:
        """The frames waiting to be shown, oldest first (the latest MAX_FRAMES_WAITING).
        Taken one by one: the call's thread may add more meanwhile, never take any."""
        frames = []
        while self._frames:
            frames.append(self._frames.popleft())
        return frames

    def _write(self, core: CallCore, recorder: Recorder, duration_ms: int = 0) -> Path:
        """Finish the session and export its report where the setup says (or the data dir's
        sessions folder)."""
        path = self.setup.report_path or default_report_path(core.session_id, recorder.started_at)
        try:
            return recorder.write(path, core, duration_ms)
        except OSError as exc:
            raise UserError(
                f"could not write the report to {path}: {exc.strerror}. What was recorded "
                "before that is kept: `sandbox sessions list` shows the call"
            ) from None
        finally:
            # The record exists the moment the call ends, even if its export failed.
            report = recorder.final_report
            if report is not None and report.record:
                self.record = record_lines(report.record)


def _starting(options: CallOptions) -> str:
    if options.brain_url:
        return f"reaching the brain at {options.brain_url} …"
    return f"starting the built-in {options.builtin} brain …"
