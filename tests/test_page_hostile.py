"""The exported page with hostile text in it, in real headless Debian chromium: a caller's
``<!--<script>`` and a brain's ``</script>`` once left the page blank (the data block swallowed
the page's own script). Now the page draws, shows the text as written, and shows a bidi
override as ``\\u202e`` instead of turning the text around."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from browser import browser, console_errors, screenshot
from hostile_text_brain import FATAL, HOSTILE, SaysHostileText, hostile_text_brain
from selenium import webdriver
from selenium.webdriver.common.by import By

from sandbox.paths import HOME_ENV

#: A call its brain ends with a fatal Error may be recorded as not reached: exit 1.
NOT_REACHED_TOO = (0, 1)

__all__ = ["browser"]  # the fixture, used by name

SCRIPT = '[[step]]\nsay = "Hi <!--<script> \\u202eevil\\u202c</script><script>alert(1)</script>"\n'


class EndsWithScript(SaysHostileText):
    """Its fatal Error closes a script element and opens a comment."""

    fatal = f"{FATAL} </script><!--<script>"


def _cli(home: Path, *args: str, codes: tuple[int, ...] = (0,)) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "sandbox.cli", *args],
        capture_output=True, text=True, env={**os.environ, HOME_ENV: str(home)}, timeout=120,
    )  # fmt: skip
    assert done.returncode in codes and "Traceback" not in done.stderr, done.stderr
    return done.stdout


def test_hostile_text_cannot_blank_the_page(tmp_path: Path, browser: webdriver.Chrome) -> None:
    (tmp_path / "call.toml").write_text(SCRIPT)
    with hostile_text_brain(EndsWithScript) as url:
        called = _cli(
            tmp_path,
            "call",
            "--brain",
            url,
            "--script",
            str(tmp_path / "call.toml"),
            codes=NOT_REACHED_TOO,
        )
    session = re.search(r"session ([0-9a-f-]{36})", called)
    assert session is not None, called
    page = tmp_path / "call.html"
    _cli(tmp_path, "export", session.group(1)[:8], "--html", str(page))
    html = page.read_text()
    assert html.count("<script") == 2 and html.count("</script>") == 2  # its own, only

    browser.get(page.as_uri())
    screenshot(browser, "page-hostile-text")
    assert console_errors(browser) == []
    assert browser.find_element(By.ID, "title").text.startswith("Call ")  # its script ran
    caller = browser.find_element(By.CSS_SELECTOR, ".entry.caller").text
    assert "Hi <!--<script> \\u202eevil\\u202c</script><script>alert(1)</script>" in caller
    assert "\u202e" not in browser.find_element(By.TAG_NAME, "body").text
    greeting = " ".join(w.text for w in browser.find_elements(By.CSS_SELECTOR, ".entry.bot .w"))
    assert "[bold red]x[/] and [@click=app.quit]q[/]" in greeting
    meta = browser.find_element(By.ID, "meta").text
    assert f"{FATAL} </script><!--<script>" in meta
    frames = browser.find_element(By.ID, "frames").text
    assert "\\x1b[2J" in frames and "<!--<script> </script>" in frames  # HOSTILE, as written
    assert HOSTILE.split(" ")[0] in frames
