"""``sandbox docs`` through the real CLI: with no display it says where the docs are (built
from this checkout's docs/ into the data directory when the checkout has no build of its own),
with a browser it opens them in it, and a copy installed without its docs says how to build
them, in words, without a traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.paths import HOME_ENV

REPO = Path(__file__).resolve().parents[1]
#: What tells the command a browser can be shown.
DISPLAY_VARIABLES = ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")


def docs(home: Path, *args: str, cwd: Path = REPO, **env: str) -> subprocess.CompletedProcess[str]:
    """``sandbox docs ARGS`` with no display unless ``env`` gives one."""
    base = {k: v for k, v in os.environ.items() if k not in DISPLAY_VARIABLES}
    return subprocess.run(
        [sys.executable, "-m", "sandbox.cli", "docs", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**base, HOME_ENV: str(home), **env},
        timeout=300,
    )


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("home")


@pytest.fixture(scope="module")
def index(home: Path) -> Path:
    """The docs' index page, as ``sandbox docs`` with no display names it."""
    done = docs(home)
    assert done.returncode == 0, done.stderr
    said = done.stdout.strip()
    assert said.startswith("the docs are in ") and said.endswith(
        "(no display to open a browser on: open it in one)"
    ), said
    page = Path(said.removeprefix("the docs are in ").split(" (no display")[0])
    assert page.name == "index.html" and "Voqalize Sandbox" in page.read_text("utf-8")
    assert page.is_relative_to(REPO / "site") or page.is_relative_to(home / "docs")
    return page


def test_with_no_display_it_says_where_the_docs_are(index: Path) -> None:
    assert (index.parent / "cli" / "index.html").is_file()  # the whole site, not one page


def test_path_prints_the_index_page_alone(home: Path, index: Path) -> None:
    done = docs(home, "--path")
    assert done.returncode == 0 and done.stdout == f"{index}\n", done.stdout + done.stderr


def test_with_a_browser_it_opens_the_docs_in_it(home: Path, index: Path, tmp_path: Path) -> None:
    opened = tmp_path / "opened"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\nprintf %s "$1" > {opened}\n')
    browser.chmod(0o755)
    done = docs(home, BROWSER=str(browser))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"opened {index} in your browser\n"
    assert opened.read_text() == index.as_uri()


def test_a_copy_installed_without_its_docs_says_how_to_build_them(tmp_path: Path) -> None:
    installed = tmp_path / "site-packages"
    for package in ("sandbox", "sdk/sandbox"):  # both distributions' parts, in one folder
        shutil.copytree(
            REPO / package, installed / "sandbox", ignore=shutil.ignore_patterns("*.pyc"),
            dirs_exist_ok=True,
        )  # fmt: skip
    done = docs(tmp_path / "home", cwd=installed, PYTHONPATH=str(installed))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("sandbox docs: this copy of the sandbox was installed without")
    assert "pip install -e '.[docs]' && mkdocs build" in done.stderr
