"""What the call runner tells the app, as Textual messages (handled in the order posted).

They are posted from the call's thread and read on the app's, so what they carry of the call
is frozen (:mod:`sandbox.call.snapshot`): the app never reads the live core."""

from __future__ import annotations

from pathlib import Path

from textual.message import Message

from sandbox.call.effects import ScreenEffect
from sandbox.call.snapshot import CallSnapshot
from sandbox.call.units import UnitView
from sandbox.host.session import CallHost


class CallProgress(Message):
    """A step of getting the call up (starting the brain, loading models, dialing)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class CallStarted(Message):
    """The brain answered: the host is about to run the call (``snapshot``: as it starts).
    The host is for telling the call things on its thread, and for its ``latest`` snapshot."""

    def __init__(self, host: CallHost, snapshot: CallSnapshot) -> None:
        super().__init__()
        self.host = host
        self.snapshot = snapshot


class CallEffect(Message):
    """The core showed something on the screen (``t_ms`` on the host's clock when it was
    carried out), with the call as it stood then and, for a unit's redraw, that unit."""

    def __init__(
        self,
        effect: ScreenEffect,
        t_ms: int,
        snapshot: CallSnapshot,
        unit: UnitView | None = None,
    ) -> None:
        super().__init__()
        self.effect = effect
        self.t_ms = t_ms
        self.snapshot = snapshot
        self.unit = unit


class CallFrames(Message):
    """Frames crossed the wire, either way: the runner's batch holds them (see
    :meth:`~sandbox.ui.runner.CallRunner.take_frames`)."""


class RecordingStopped(Message):
    """The session store could not be written (a full disk): the call goes on unrecorded."""

    def __init__(self, words: str) -> None:
        super().__init__()
        self.words = words


class DeviceLost(Message):
    """The microphone or the speaker went away mid-call; the call goes on without it."""

    def __init__(self, words: str) -> None:
        super().__init__()
        self.words = words


class CallFinished(Message):
    """The call is over: where its report went, and what went wrong if it did, in words."""

    def __init__(
        self, report: Path | None, problem: str | None, record: list[str] | None = None
    ) -> None:
        super().__init__()
        self.report = report
        self.problem = problem
        #: The call record in words (``record_lines``), when the call left a report.
        self.record = record or []
