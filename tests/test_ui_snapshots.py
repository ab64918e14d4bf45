"""Snapshots of the main screen states: greeting, speaking, interrupted with a cut unit,
the typed-mode banner, an error.

The call is real (built-in brain, loopback WebSocket, call core, simulated playout) and
made deterministic: the host's clock is frozen and moved only here, the session id is
pinned, the report goes to a relative path, the wire pane hides TurnSteps (they carry the
brain's own wall-clock timings), and input cursors do not blink.
Update with ``pytest tests/test_ui_snapshots.py --snapshot-update`` after checking the diff.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, Select
from ui_brains import in_thread, version_refusing_brain
from ui_rig import (
    FIXED_SESSION,
    ManualClock,
    advance,
    connected,
    host_of,
    line_texts,
    make_app,
    pin_session_id,
    say,
    unit,
    use_home,
    wait_until,
)

from sandbox.audio.device_choice import pick_devices
from sandbox.call.units import Bracket
from sandbox.ui.app import SandboxApp
from sandbox.ui.choose import HOW_TO_ENABLE
from sandbox.ui.screens.settings import SettingsScreen
from sandbox.ui.screens.waterfall import WaterfallScreen
from sandbox.ui.typed_audio import typed_banner
from sandbox.wire import pb

SnapCompare = Callable[..., bool]
MS_PER_WORD = 100
#: The greeting's 17 words, and a little more.
GREETING_MS = 1800
WIDE = (150, 42)


@pytest.fixture(autouse=True)
def deterministic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_home(monkeypatch, tmp_path / "home")
    pin_session_id(monkeypatch)
    monkeypatch.chdir(tmp_path)


def snapshot_app(
    clock: ManualClock, brain_url: str | None = None, banner: str | None = None
) -> SandboxApp:
    report = Path("report.json")
    return make_app(MS_PER_WORD, clock=clock, report=report, brain_url=brain_url, banner=banner)


async def _steady(pilot: Pilot[Any]) -> SandboxApp:
    """Connected, greeting received, cursors still, TurnSteps hidden from the wire pane."""
    app = await connected(pilot)
    for box in app.query(Input):
        box.cursor_blink = False
    app.wire.query_one("#wire-filter", Input).value = "-turn_step"
    return app


async def _greeted(pilot: Pilot[Any], clock: ManualClock) -> SandboxApp:
    app = await _steady(pilot)
    await advance(pilot, clock, GREETING_MS)
    await wait_until(pilot, lambda: host_of(app).core.state == "listening", "listening")
    return app


async def _speaking(pilot: Pilot[Any], clock: ManualClock) -> SandboxApp:
    """Six words into the answer about prices."""
    app = await _greeted(pilot, clock)
    await say(pilot, "what are your prices")
    await wait_until(pilot, lambda: len(host_of(app).core.units) >= 2, "the reply")
    await wait_until(pilot, lambda: unit(app, 2).bracket is Bracket.ENDED, "all of its text")
    await advance(pilot, clock, 5 * MS_PER_WORD)  # words are heard as they start: 0..5
    await wait_until(pilot, lambda: unit(app, 2).cursor.words_heard == 6, "six words heard")
    return app


def run(
    snap_compare: SnapCompare,
    clock: ManualClock,
    scenario: Callable[[Pilot[Any]], Awaitable[object]],
    size: tuple[int, int] = WIDE,
    brain_url: str | None = None,
    banner: str | None = None,
) -> bool:
    app = snapshot_app(clock, brain_url, banner)
    return snap_compare(app, run_before=scenario, terminal_size=size)


def test_typed_mode_banner(snap_compare: SnapCompare) -> None:
    """No devices, a small terminal: the banner says why there is no sound and how to get it."""
    clock = ManualClock()
    found = pick_devices(None, None, []).summary  # the words choose_audio's banner uses
    why = typed_banner(found, MS_PER_WORD, HOW_TO_ENABLE)
    assert run(snap_compare, clock, _steady, size=(100, 30), banner=why)


def test_greeting(snap_compare: SnapCompare) -> None:
    """The greeting has played; the call listens."""
    clock = ManualClock()
    assert run(snap_compare, clock, lambda pilot: _greeted(pilot, clock))


def test_speaking(snap_compare: SnapCompare) -> None:
    """The bot is speaking: six words heard in bold, the rest dimmed."""
    clock = ManualClock()
    assert run(snap_compare, clock, lambda pilot: _speaking(pilot, clock))


def test_interrupted_with_a_cut_unit(snap_compare: SnapCompare) -> None:
    """Barge-in by key: the unit is cut at six words, the caller holds the floor."""
    clock = ManualClock()

    async def interrupted(pilot: Pilot[Any]) -> None:
        app = await _speaking(pilot, clock)
        await pilot.press("f2")
        await wait_until(pilot, lambda: app.status.info.state == "interrupted", "interrupted")

    assert run(snap_compare, clock, interrupted)


def test_error_rejected_config(snap_compare: SnapCompare) -> None:
    """A voice whose model is not installed here is refused, in words; nothing changes."""
    clock = ManualClock()

    async def rejected(pilot: Pilot[Any]) -> None:
        app = await _greeted(pilot, clock)
        await pilot.press("f4")
        await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen), "settings")
        app.screen.query_one("#voice", Select).value = pb.VOICE_THORSTEN
        await pilot.click("#apply")
        await wait_until(
            pilot, lambda: any("config rejected" in t for t in line_texts(app)), "the refusal"
        )

    assert run(snap_compare, clock, rejected)


def test_error_refused_version(snap_compare: SnapCompare) -> None:
    """A brain for another wire version refuses the session: words, and the report's path."""
    clock = ManualClock()

    async def refused(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, SandboxApp)
        await wait_until(pilot, lambda: app.report is not None, "the report")
        for box in app.query(Input):
            box.cursor_blink = False
        app.sub_title = f"session {FIXED_SESSION} · a brain for wire version 2"  # not its port

    with in_thread(version_refusing_brain) as url:
        assert run(snap_compare, clock, refused, brain_url=url)


def test_latency_waterfall(snap_compare: SnapCompare) -> None:
    """f7 over a reply being spoken: the last caller turn's stages on one time axis (typed,
    on the simulated playout: from its UserMessage to its first sample)."""
    clock = ManualClock()

    async def waterfall(pilot: Pilot[Any]) -> None:
        app = await _speaking(pilot, clock)
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, WaterfallScreen), "the waterfall")

    assert run(snap_compare, clock, waterfall)


def test_latency_waterfall_of_a_spoken_turn(snap_compare: SnapCompare) -> None:
    """A spoken turn's every stage, voice end to the speaker, in the shape a real-audio call
    keeps them (the times are made up for the picture; figures come from the bench)."""
    timeline = {
        "voice_end": 10_240,
        "window_closed": 10_880,
        "committed": 10_910,
        "user_message": 10_912,
        "first_chunk": 11_020,
        "first_clause": 11_160,
        "first_sample": 11_178,
        "first_speaker": 11_218,
    }

    class Shown(App[None]):
        def on_mount(self) -> None:
            self.push_screen(WaterfallScreen(3, timeline))

    assert snap_compare(Shown(), terminal_size=(110, 16))
