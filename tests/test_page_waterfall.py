"""The exported page draws each caller turn's latency waterfall as an SVG, in a real
headless browser (Debian's chromium): one per turn, a bar per stage in stage order, the
stage's ms beside it, a caller's text shown as text, and a click seeks to the turn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser import browser, console_errors, screenshot
from cli_rig import sandbox_cli
from selenium import webdriver
from selenium.webdriver.common.by import By
from session_rig import recorded_call

from sandbox.call.waterfall import STAGES, from_start
from sandbox.paths import HOME_ENV

__all__ = ["browser"]  # the fixture, used by name

TRICKY = "a </script><svg onload=alert(1)> & <b>b</b>"
SCRIPT = f"""
ms_per_word = 10
[[step]]
say = "What are your opening hours?"
[[step]]
say = "{TRICKY}"
"""


async def test_the_page_draws_an_svg_waterfall_per_turn(
    browser: webdriver.Chrome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv(HOME_ENV, str(home))
    host = await recorded_call(SCRIPT)
    sid = host.core.session_id[:8]
    turns = json.loads(sandbox_cli(home, "sessions", "show", sid, "--json").stdout)["turns"]
    assert len(turns) == 2
    page = tmp_path / "page.html"
    assert sandbox_cli(home, "export", sid, "--html", str(page)).returncode == 0
    browser.get(page.as_uri())
    falls = browser.find_elements(By.CSS_SELECTOR, "#waterfalls .waterfall")
    assert [int(f.get_attribute("data-turn") or 0) for f in falls] == [t["turn_id"] for t in turns]
    for fall, turn in zip(falls, turns, strict=True):
        offsets = from_start(turn["timeline"])
        bars = fall.find_elements(By.CSS_SELECTOR, "svg.wf rect.wf-bar")
        assert [b.get_attribute("data-stage") for b in bars] == list(offsets)
        starts = [float(b.get_attribute("x") or 0) for b in bars]
        assert starts == sorted(starts)  # each bar starts where the stage before it ended
        labels = [t.text for t in fall.find_elements(By.CSS_SELECTOR, "text.wf-label")]
        assert labels == [STAGES[stage] for stage in offsets]
        shown = [t.text for t in fall.find_elements(By.CSS_SELECTOR, "text.wf-ms")]
        assert shown == [f"{ms} ms" for ms in offsets.values()]
    # The caller's words are text in the title, never markup: no element came of them.
    title = falls[1].find_element(By.CSS_SELECTOR, ".wf-title").text
    assert TRICKY in title
    assert browser.find_elements(By.CSS_SELECTOR, "#waterfalls b, #waterfalls svg svg") == []
    falls[1].click()
    first = next(iter(turns[1]["timeline"].values()))
    assert browser.find_element(By.ID, "time").text.startswith(f"{first / 1000:.1f} s")
    screenshot(browser, "page-waterfall")
    assert console_errors(browser) == []
