"""The exported session page, in a real headless browser (Debian's chromium): it opens
offline without a console error, its audio is the call, clicking seeks, and the heard words
light up in time as it plays."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from browser import browser, console_errors, requested, screenshot
from selenium import webdriver
from selenium.webdriver.common.by import By
from session_rig import recorded_call
from waiting import until

from sandbox.brains.echo import Echo
from sandbox.paths import HOME_ENV
from sandbox.record.store import SessionRow, SessionStore
from sandbox.sdk import serve
from sandbox.wire.tokens import load_or_create_keys

__all__ = ["browser"]  # the fixture, used by name

SCRIPT = """
[[step]]
say = "What are your opening hours?"
[[step]]
barge_in = "Sorry, how much is a class?"
after_words = 8
"""


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sandbox.cli", *args],
        capture_output=True, text=True, env={**os.environ, HOME_ENV: str(home)}, timeout=300,
    )  # fmt: skip


@pytest.fixture(scope="module")
def audio_page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, SessionRow]]:
    """A real-audio call with a barge-in (espeak, Whisper, Piper), exported as a page."""
    home = tmp_path_factory.mktemp("home")
    script = home / "call.toml"
    script.write_text(SCRIPT)
    called = _cli(home, "call", "--audio", "real", "--speaker", "none", "--script", str(script))
    assert called.returncode == 0, called.stderr
    before = os.environ.get(HOME_ENV)
    os.environ[HOME_ENV] = str(home)
    try:
        with SessionStore() as store:
            (row,) = store.sessions()
    finally:
        if before is None:
            del os.environ[HOME_ENV]
        else:
            os.environ[HOME_ENV] = before
    page = home / "call.html"
    exported = _cli(home, "export", row.id[:8], "--html", str(page))
    assert exported.returncode == 0, exported.stderr
    assert f"wrote {page}" in exported.stdout
    yield page, row


def audio_state(driver: webdriver.Chrome) -> dict[str, Any]:
    state: dict[str, Any] = driver.execute_script(
        "const a = document.getElementById('audio');"
        "return {duration: a.duration, time: a.currentTime, ready: a.readyState,"
        " paused: a.paused};"
    )
    return state


@pytest.mark.audio
def test_the_page_opens_offline_and_its_audio_is_the_call(
    browser: webdriver.Chrome, audio_page: tuple[Path, SessionRow]
) -> None:
    page, row = audio_page
    browser.get(page.as_uri())
    until(lambda: audio_state(browser)["ready"] >= 1, "the audio's metadata", 10)
    assert row.duration_ms is not None
    assert abs(audio_state(browser)["duration"] - row.duration_ms / 1000) <= 0.1
    assert row.id[:12] in browser.title
    # Which language each leg was in: the settings the call ended with.
    assert "voice joe · speak en · hear en" in browser.find_element(By.ID, "meta").text
    # Nothing but the file itself and data: URIs (the audio, the player's own icons).
    outside = [u for u in requested(browser) if u != page.as_uri() and not u.startswith("data:")]
    assert outside == []
    assert console_errors(browser) == []
    cut = browser.find_element(By.CSS_SELECTOR, ".entry.bot .cutmark")
    assert "words heard" in cut.text
    assert browser.find_elements(By.CSS_SELECTOR, ".w.unheard")  # struck through
    assert browser.find_elements(By.CSS_SELECTOR, ".mark.barge-in")
    screenshot(browser, "page-opened")


@pytest.mark.audio
def test_the_page_has_one_play_control(
    browser: webdriver.Chrome, audio_page: tuple[Path, SessionRow]
) -> None:
    page, _row = audio_page
    browser.get(page.as_uri())
    until(lambda: audio_state(browser)["ready"] >= 1, "the audio's metadata", 10)
    # The page's button plays the sound; the browser's own audio bar would be a second one.
    assert browser.execute_script("return document.getElementById('audio').controls") is False
    assert not browser.find_element(By.ID, "audio").is_displayed()
    assert browser.find_element(By.ID, "play").is_displayed()
    assert console_errors(browser) == []


@pytest.mark.audio
def test_clicking_a_unit_or_a_frame_seeks_the_audio_there(
    browser: webdriver.Chrome, audio_page: tuple[Path, SessionRow]
) -> None:
    page, _row = audio_page
    browser.get(page.as_uri())
    until(lambda: audio_state(browser)["ready"] >= 1, "the audio's metadata", 10)
    unit = browser.find_elements(By.CSS_SELECTOR, ".entry.bot")[1]  # the answer that was cut
    opened_ms = int(unit.get_attribute("data-t") or 0)
    assert opened_ms > 0
    unit.click()
    until(lambda: abs(audio_state(browser)["time"] * 1000 - opened_ms) <= 30, "the seek", 10)
    last = browser.find_elements(By.CSS_SELECTOR, "#frames tr")[-1]
    last.click()
    shown = last.find_element(By.CSS_SELECTOR, "td.t").text  # "12.3 s"
    until(
        lambda: abs(audio_state(browser)["time"] - float(shown.split()[0])) <= 0.06,
        "the seek to the frame",
        10,
    )
    assert console_errors(browser) == []
    screenshot(browser, "page-seeked")


@pytest.mark.audio
def test_playing_lights_the_heard_words_in_time(
    pulse: ModuleType, browser: webdriver.Chrome, audio_page: tuple[Path, SessionRow]
) -> None:
    page, _row = audio_page
    browser.get(page.as_uri())
    until(lambda: audio_state(browser)["ready"] >= 2, "the audio", 10)
    browser.find_elements(By.CSS_SELECTOR, ".entry.bot")[1].click()  # the cut answer
    browser.find_element(By.ID, "play").click()
    until(lambda: not audio_state(browser)["paused"], "playback", 10)

    def current() -> int:
        index: int = browser.execute_script(
            "const words = [...document.querySelectorAll('.entry.bot')[1]"
            ".querySelectorAll('.w')];"
            "return words.findIndex(w => w.classList.contains('now'));"
        )
        return index

    first = until(lambda: current() >= 0 and current() + 1, "a lit word", 10) - 1
    later = until(lambda: current() > first and current(), "the lit word to advance", 10)
    assert later > first
    assert browser.find_elements(By.CSS_SELECTOR, ".w.unheard.lit") == []  # never heard
    screenshot(browser, "page-playing")
    assert console_errors(browser) == []


async def test_a_sim_call_page_plays_silently_and_shows_text_literally(
    browser: webdriver.Chrome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv(HOME_ENV, str(home))
    server = await serve(
        Echo, host="127.0.0.1", port=0, public_key_pem=load_or_create_keys().public_pem
    )
    tricky = "a </script><script>document.title='owned'</script> & <b>b</b>"
    try:
        host = await recorded_call(f'[[step]]\nsay = "{tricky}"\n', brain_url=server.url())
    finally:
        await server.close()
    page = tmp_path / "sim.html"
    assert _cli(home, "export", host.core.session_id[:8], "--html", str(page)).returncode == 0
    browser.get(page.as_uri())
    assert browser.find_elements(By.ID, "audio") == []
    assert "no audio was recorded" in browser.find_element(By.ID, "sound-note").text
    caller = browser.find_element(By.CSS_SELECTOR, ".entry.caller")
    assert tricky in caller.text and "owned" not in browser.title
    browser.find_element(By.ID, "play").click()
    until(lambda: browser.find_element(By.ID, "time").text.split()[0] != "0.0", "the clock", 10)
    assert console_errors(browser) == []
    screenshot(browser, "page-sim")
