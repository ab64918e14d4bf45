"""``sandbox docs`` through the real CLI, in a clone with no build of its own, refuses in
words a link (or a file) where it keeps the built docs in the data folder (``docs``) or moves
the last build aside (``.docs.old``): it once crashed (NotADirectoryError, exit 70) moving
the old build onto such a link, and read the docs through one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.paths import HOME_ENV

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clone with its docs unbuilt (this checkout may have a ``site/`` of its own)."""
    root = tmp_path_factory.mktemp("clone")
    for package in ("sandbox", "sdk/sandbox"):  # the app's part of the package, the SDK's
        shutil.copytree(
            REPO / package, root / package, ignore=shutil.ignore_patterns("*.pyc", "*.onnx")
        )
    shutil.copytree(REPO / "docs", root / "docs")
    shutil.copy(REPO / "mkdocs.yml", root)
    return root


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A data folder holding a build older than the docs: ``sandbox docs`` would rebuild."""
    index = tmp_path / "home" / "docs" / "index.html"
    index.parent.mkdir(parents=True)
    index.write_text("the last build")
    os.utime(index, (0, 0))
    return tmp_path / "home"


def _docs(clone: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sandbox.cli", "docs", "--path"],
        capture_output=True, text=True, cwd=clone, timeout=120,
        env={**os.environ, HOME_ENV: str(home), "PYTHONPATH": f"{clone}:{clone / 'sdk'}"},
    )  # fmt: skip


@pytest.mark.parametrize("name", ["docs", ".docs.old"])
def test_a_link_in_the_docs_folder_is_refused_in_words(
    clone: Path, home: Path, tmp_path: Path, name: str
) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "docs").mkdir(parents=True)
    (elsewhere / "docs" / "index.html").write_text("not the sandbox's docs")
    link = home / name
    shutil.rmtree(link, ignore_errors=True)
    link.symlink_to(elsewhere / "docs")
    done = _docs(clone, home)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr == (
        f"sandbox docs: {link} is a symbolic link: the docs are built only into a folder of the "
        f"sandbox's own. Remove the link (rm {link}), then run `sandbox docs` again\n"
    )
    assert done.stdout == "" and link.is_symlink()
    assert sorted(p.name for p in elsewhere.rglob("*")) == ["docs", "index.html"]


def test_a_file_where_the_old_build_goes_is_refused_in_words(clone: Path, home: Path) -> None:
    (home / ".docs.old").write_text("mine")
    done = _docs(clone, home)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr == (
        f"sandbox docs: {home / '.docs.old'} is a file where `sandbox docs` keeps a folder: "
        "move it aside, then run `sandbox docs` again\n"
    )
    assert (home / "docs" / "index.html").read_text() == "the last build"
