"""What the call runner tells the app, as Textual messages (handled in the order posted)."""

from __future__ import annotations

from pathlib import Path

from textual.message import Message

from sandbox.call.effects import ScreenEffect
from sandbox.host.session import CallHost


class CallProgress(Message):
    """A step of getting the call up (starting the brain, loading models, dialing)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class CallStarted(Message):
    """The brain answered: the host is about to run the call."""

    def __init__(self, host: CallHost) -> None:
        super().__init__()
        self.host = host


class CallEffect(Message):
    """The core showed something on the screen (``t_ms`` on the host's clock when it was
    carried out)."""

    def __init__(self, effect: ScreenEffect, t_ms: int) -> None:
        super().__init__()
        self.effect = effect
        self.t_ms = t_ms


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
