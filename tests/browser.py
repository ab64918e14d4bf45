"""A real headless browser for the exported pages: Debian's chromium through its own
chromedriver (selenium drives it; no browser is downloaded)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
#: Screenshots of every page test, to look at.
SHOTS = Path(__file__).resolve().parent.parent / "test-output"


@pytest.fixture
def browser() -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,900",
        "--autoplay-policy=no-user-gesture-required",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def console_errors(driver: webdriver.Chrome) -> list[dict[str, Any]]:
    """What the page logged as errors (uncaught exceptions included)."""
    entries: list[dict[str, Any]] = driver.get_log("browser")  # type: ignore[no-untyped-call]
    return [entry for entry in entries if entry["level"] == "SEVERE"]


def requested(driver: webdriver.Chrome) -> list[str]:
    """Every URL the page asked for, from the browser's own network log."""
    urls = []
    for entry in driver.get_log("performance"):  # type: ignore[no-untyped-call]
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def screenshot(driver: webdriver.Chrome, name: str) -> Path:
    """Save what the browser shows to the test output folder."""
    SHOTS.mkdir(exist_ok=True)
    path = SHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path
