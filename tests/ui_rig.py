"""Helpers for the app's tests: the app on the built-in brain, waits, and a frozen clock.

The app runs the real call: the built-in brain served on loopback, a real WebSocket, the
call core and the simulated playout. Snapshot tests freeze the host's clock
(:class:`ManualClock`) so frame times, heard words and latencies are the same every run.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from sandbox.call.effects import CallState, Effect
from sandbox.call.settings import Settings
from sandbox.call.units import Bracket, Unit
from sandbox.host.launch import CallOptions
from sandbox.host.posted import Posted
from sandbox.host.session import CallHost
from sandbox.paths import HOME_ENV
from sandbox.ui.app import SandboxApp
from sandbox.ui.choose import ASKED_TYPED
from sandbox.ui.runner import CallSetup
from sandbox.ui.typed_audio import TypedAudio, typed_banner

#: The session id snapshot tests pin, so the header and SessionStart read the same each run.
FIXED_SESSION = uuid.UUID("5a11d0c0-0000-4000-8000-000000000001")
#: The terminal the pilot tests run in.
SIZE = (160, 50)


def use_home(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """Keys and reports go to ``home``, not the user's data dir."""
    monkeypatch.setenv(HOME_ENV, str(home))


def pin_session_id(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every uuid4 in this test is :data:`FIXED_SESSION` (the call's session id)."""
    monkeypatch.setattr(uuid, "uuid4", lambda: FIXED_SESSION)


class ManualClock:
    """The host's clock, moved only by the test."""

    def __init__(self) -> None:
        self.ms = 0

    def __call__(self) -> float:
        return self.ms / 1000

    def advance(self, ms: int) -> None:
        """Let ``ms`` pass."""
        self.ms += ms


def make_app(
    ms_per_word: int = 30,
    *,
    clock: Callable[[], float] = time.monotonic,
    report: Path | None = None,
    brain_url: str | None = None,
    builtin: str = "concierge",
    banner: str | None = None,
    **settings: Any,
) -> SandboxApp:
    """The app in typed mode on the built-in brain (or ``brain_url``)."""
    audio = TypedAudio(ms_per_word, banner or typed_banner(ASKED_TYPED, ms_per_word))
    options = CallOptions(brain_url=brain_url, builtin=builtin, settings=Settings(**settings))
    return SandboxApp(CallSetup(options, audio, report_path=report, clock=clock))


async def wait_until(
    pilot: Pilot[Any], predicate: Callable[[], bool], what: str, timeout_s: float = 15.0
) -> None:
    """Let the app run until ``predicate()`` holds; fail naming ``what`` otherwise."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        # Not pilot.pause(): that waits for the UI to go idle, which a playing reply delays.
        await asyncio.sleep(0.01)
    await pilot.pause()


async def say(pilot: Pilot[Any], text: str) -> None:
    """Type ``text`` into the message box and press enter (send-text)."""
    from textual.widgets import Input

    pilot.app.query_one("#say", Input).value = text
    await pilot.press("enter")


def host_of(app: SandboxApp) -> CallHost:
    """The running call's host (the test waited for it)."""
    assert app.host is not None, "the call is not up"
    return app.host


def unit(app: SandboxApp, speech_id: int) -> Unit:
    """A unit of the call, which must exist."""
    found = host_of(app).core.unit(speech_id)
    assert found is not None, f"no unit {speech_id}"
    return found


async def connected(pilot: Pilot[Any]) -> SandboxApp:
    """Wait until the brain answered and its greeting is fully received."""
    app = pilot.app
    assert isinstance(app, SandboxApp)
    await wait_until(pilot, lambda: app.host is not None, "the call to connect")
    await wait_until(pilot, lambda: _greeting_received(app), "the greeting")
    return app


async def greeted(pilot: Pilot[Any]) -> SandboxApp:
    """Wait until the greeting has played and the call is listening."""
    app = await connected(pilot)
    await wait_until(
        pilot, lambda: host_of(app).core.state is CallState.LISTENING, "the greeting to play"
    )
    return app


def _greeting_received(app: SandboxApp) -> bool:
    greeting = app.host.core.unit(1) if app.host else None
    return greeting is not None and greeting.bracket is not Bracket.OPEN


async def settle(host: CallHost) -> None:
    """Return once the host has handled everything posted so far, and pumped after it (on
    the call's own thread: :mod:`sandbox.ui.call_thread`)."""
    here = asyncio.get_running_loop()
    done: asyncio.Future[None] = here.create_future()

    def mark(_effects: list[Effect]) -> None:
        here.call_soon_threadsafe(done.set_result, None)

    host.post_threadsafe(Posted(None))
    host.post_threadsafe(Posted(None, mark))
    await asyncio.wait_for(done, 5)


async def advance(pilot: Pilot[Any], clock: ManualClock, ms: int, step: int = 10) -> None:
    """Move the frozen clock ``ms`` forward in steps, letting the host play out each one."""
    app = pilot.app
    assert isinstance(app, SandboxApp)
    host = host_of(app)
    for _ in range(ms // step):
        clock.advance(step)
        await settle(host)
    await pilot.pause()


def line_texts(app: SandboxApp) -> list[str]:
    """The conversation as plain text, one string per entry."""
    from sandbox.ui.widgets.conversation import Line

    return [line.text.plain for line in app.conversation.query(Line)]
