"""What a newcomer met reading a saved call back (issue 30): the built-in brain by its name
rather than a random loopback port, how a call ended as a sentence, text printed as text,
a replay's status lines filled as the recording plays, and a demo scene's page keeping its
title and captions. Each through what the user runs: the CLI, the replay app, the page."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from browser import browser, console_errors, screenshot
from cli_rig import sandbox_cli
from selenium import webdriver
from selenium.webdriver.common.by import By
from session_rig import recorded_call
from ui_rig import SIZE, ManualClock

from sandbox.brains.echo import Echo
from sandbox.call.waterfall import from_start, summary
from sandbox.demo.headless import play_scene
from sandbox.demo.scene import load_scene
from sandbox.paths import HOME_ENV
from sandbox.replay.source import open_recording
from sandbox.sdk import serve
from sandbox.ui.replay_app import ReplayApp
from sandbox.wire.tokens import load_or_create_keys

__all__ = ["browser"]  # the fixture, used by name

SCRIPT = 'ms_per_word = 20\n[[step]]\nsay = "I\'d like a table for two"\n[[step]]\nend = true\n'


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    monkeypatch.setenv(HOME_ENV, str(folder))
    return folder


def _newest_id(home: Path) -> str:
    listed = sandbox_cli(home, "sessions", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    return str(json.loads(listed.stdout.splitlines()[0])["id"])


def test_the_built_in_brain_goes_by_its_name_and_the_ending_is_a_sentence(
    home: Path, tmp_path: Path
) -> None:
    script = tmp_path / "call.toml"
    script.write_text(SCRIPT)
    called = sandbox_cli(home, "call", "--script", str(script))
    assert called.returncode == 0, called.stderr
    assert "outcome completed — the caller hung up" in called.stdout
    listed = sandbox_cli(home, "sessions", "list")
    assert "the built-in concierge" in listed.stdout
    assert "ws://" not in listed.stdout  # its port was picked for that one call
    session = _newest_id(home)[:8]
    shown = sandbox_cli(home, "sessions", "show", session)
    assert shown.returncode == 0, shown.stderr
    assert "brain the built-in concierge" in shown.stdout and "ws://" not in shown.stdout
    assert "  outcome completed — the caller hung up\n" in shown.stdout
    summary = sandbox_cli(home, "export", session, "--md", "-")
    assert summary.returncode == 0, summary.stderr
    assert ": completed — the caller hung up\n" in summary.stdout
    assert "brain `the built-in concierge`" in summary.stdout


async def test_a_brain_at_a_url_goes_by_it_and_show_prints_text_not_reprs(
    home: Path, tmp_path: Path
) -> None:
    server = await serve(
        Echo, host="127.0.0.1", port=0, public_key_pem=load_or_create_keys().public_pem
    )
    script = tmp_path / "call.toml"
    script.write_text(SCRIPT)
    try:
        called = await asyncio.to_thread(
            sandbox_cli, home, "call", "--brain", server.url(), "--script", str(script)
        )
    finally:
        await server.close()
    assert called.returncode == 0, called.stderr
    listed = sandbox_cli(home, "sessions", "list")
    assert server.url() in listed.stdout
    shown = sandbox_cli(home, "sessions", "show", _newest_id(home)[:8])
    assert f"brain {server.url()}" in shown.stdout
    # A repr would switch to double quotes for the apostrophe: the same quotes for every line.
    bot = [line for line in shown.stdout.splitlines() if line.startswith("  bot ")]
    assert bot[-1].endswith("] 'You said: I'd like a table for two'"), bot
    assert not any('"' in line for line in bot)


async def test_the_replay_status_shows_the_config_and_latency_as_the_call_had_them(
    home: Path,
) -> None:
    host = await recorded_call()
    app = ReplayApp(open_recording(host.core.session_id[:8]), clock=ManualClock())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert " · the built-in concierge · " in app.sub_title
        started = app.status.info
        assert started.config == host.core.settings.describe()  # not "—"
        assert started.latency == ""  # at the start there is no caller turn yet: truly
        app.go_to(app.duration_ms)
        await pilot.pause()
        ended = app.status.info
        turns = [f for f in host.recorder.frames if f.type == "user_message"]
        last_turn = int(turns[-1].fields["turn_id"])
        # The stored timeline's own figures, as w (the waterfall at the playhead) draws them.
        timeline = host.core.ledger.timelines[last_turn]
        assert ended.latency == summary(last_turn, timeline)
        assert f"first audio {from_start(timeline)['first_sample']} ms" in ended.latency
        app.go_to(0)  # back: rebuilt from the start, the waterfall too
        await pilot.pause()
        assert app.status.info.latency == ""
        app.go_to(app.duration_ms)
        await pilot.pause()
        assert app.status.info.latency == ended.latency


async def test_an_exported_scene_keeps_its_title_and_captions_at_their_moments(
    home: Path, tmp_path: Path, browser: webdriver.Chrome
) -> None:
    scene = load_scene("barge_in")
    played = await play_scene(scene)
    assert played.captions
    page = tmp_path / "scene.html"
    session = played.host.core.session_id[:8]
    exported = await asyncio.to_thread(sandbox_cli, home, "export", session, "--html", str(page))
    assert exported.returncode == 0, exported.stderr
    browser.get(page.as_uri())
    assert scene.title in browser.title and session in browser.title
    assert browser.find_element(By.ID, "title").text.startswith(scene.title)
    rows = browser.find_elements(By.CSS_SELECTOR, ".entry.caption")
    assert [row.text for row in rows] == played.captions
    for row in rows:  # at each caption's moment, it is the one up
        row.click()
        assert browser.find_element(By.ID, "caption").text == row.text
    screenshot(browser, "page-scene")
    assert console_errors(browser) == []
