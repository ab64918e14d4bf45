"""The docs' pictures are what ``tools/docs-screenshots`` makes now: the script runs from this
checkout, and each SVG it draws, and each one committed in docs/img/, is a valid SVG showing
the same moments in words (not the same bytes: timings and session ids differ run to run);
the exported page's PNG is a real PNG of the browser window's size."""

from __future__ import annotations

import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "tools" / "docs-screenshots"
IMAGES = REPO / "docs" / "img"
SVG = "{http://www.w3.org/2000/svg}"
#: What each picture must show: the moment the docs describe.
SHOWN = {
    "app.svg": (
        "the built-in concierge",
        "What are your opening hours?",
        "cut by a barge-in",
        "words heard",
        "Sorry, where are you, exactly?",
        "listening",
    ),
    "replay.svg": (
        "Voqalize Sandbox · replay",
        "Replaying without sound (a typed call).",
        "interruption",
        "play/pause",
    ),
    "demo.svg": (
        "The caller cut in.",
        "the brain's history keeps exactly those",
        "cut by a barge-in",
        "space next scene",
    ),
}
PAGE = "export-page.png"
#: The browser window the page is drawn in (tools/docs-screenshots).
PAGE_SIZE = (1400, 900)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("img")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def words(svg: Path) -> str:
    """The words an SVG screenshot shows, as one line (Textual spaces are no-break spaces)."""
    root = ET.parse(svg).getroot()
    assert root.tag == f"{SVG}svg", f"{svg} is not an SVG"
    text = "".join("".join(node.itertext()) for node in root.iter(f"{SVG}text"))
    return " ".join(text.replace("\xa0", " ").split())


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_a_screenshot_shows_its_moment_fresh_and_committed(fresh: Path, name: str) -> None:
    for folder in (fresh, IMAGES):
        shown = words(folder / name)
        for phrase in SHOWN[name]:
            assert phrase in shown, f"{folder / name} does not show {phrase!r}"


def test_the_exported_page_is_drawn_by_the_browser(fresh: Path) -> None:
    for folder in (fresh, IMAGES):
        head = (folder / PAGE).read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
        assert struct.unpack(">II", head[16:24]) == PAGE_SIZE
