"""``sandbox docs``: open the documentation site, or say where it is and how to build it.

The site is built by MkDocs from ``docs/`` in a clone of the repository. A clone's own build
(``site/``, what ``mkdocs build`` writes) is opened first; otherwise, when MkDocs is installed,
the clone's docs are built into the data directory (again whenever a page is newer than the
build). An installed copy with no clone beside it has no docs to build, and says so.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import webbrowser
from pathlib import Path

import sandbox
from sandbox.errors import UserError
from sandbox.paths import data_dir
from sandbox.private_files import private_folder

HELP = "open the documentation site in a browser, or print where it is and how to build it"

#: How a clone's docs are built, as the words that refuse say it.
BUILD = "pip install -e '.[docs]' && mkdocs build"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sandbox docs``."""
    parser.add_argument(
        "--path",
        action="store_true",
        help="print the docs' index page instead of opening it (also when there is no display)",
    )


def run(args: argparse.Namespace) -> int:
    """Find (or build) the docs, then open them or print where they are."""
    index = _built_docs(_clone())
    if args.path:
        print(index)
    elif not _has_display():
        print(f"the docs are in {index} (no display to open a browser on: open it in one)")
    elif webbrowser.open(index.as_uri()):
        print(f"opened {index} in your browser")
    else:
        print(f"no browser could be started: the docs are in {index}")
    return 0


def _clone() -> Path | None:
    """The clone this package runs from (the folder holding ``mkdocs.yml`` beside
    ``sandbox/``), or None for an installed copy."""
    root = Path(sandbox.__file__).resolve().parents[1]
    return root if (root / "mkdocs.yml").is_file() and (root / "docs").is_dir() else None


def _built_docs(clone: Path | None) -> Path:
    """The index page of built docs, building them into the data directory if need be."""
    if clone is None:
        raise UserError(
            "this copy of the sandbox was installed without its docs. In a clone of the "
            f"repository run `{BUILD}`, then `sandbox docs` there"
        )
    own = clone / "site" / "index.html"
    if own.is_file():
        return own
    built = data_dir() / "docs" / "index.html"
    _own_folders(built.parent)
    if built.is_file() and built.stat().st_mtime >= _newest_source(clone):
        return built
    if importlib.util.find_spec("mkdocs") is None:
        raise UserError(
            f"the docs in {clone / 'docs'} are not built, and MkDocs is not installed: "
            f"in {clone} run `{BUILD}`, then `sandbox docs` again"
        )
    print(f"building the docs from {clone / 'docs'} into {built.parent} …", file=sys.stderr)
    _build(clone, built.parent)
    return built


def _own_folders(target: Path) -> None:
    """Refuse, in words, a link (or a file) where the built docs go or where the old build is
    moved aside: a build neither reads through a link nor moves a folder onto one."""
    for path in (target, _old(target)):
        if path.is_symlink():
            raise UserError(
                f"{path} is a symbolic link: the docs are built only into a folder of the "
                f"sandbox's own. Remove the link (rm {path}), then run `sandbox docs` again"
            )
        if path.exists() and not path.is_dir():
            raise UserError(
                f"{path} is a file where `sandbox docs` keeps a folder: move it aside, "
                "then run `sandbox docs` again"
            )


def _old(target: Path) -> Path:
    """Where the last build is moved while the new one takes its place."""
    return target.with_name(f".{target.name}.old")


def _newest_source(clone: Path) -> float:
    """When a page of the docs (or their configuration) last changed."""
    sources = [clone / "mkdocs.yml", *(p for p in (clone / "docs").rglob("*") if p.is_file())]
    return max(p.stat().st_mtime for p in sources)


def _build(clone: Path, target: Path) -> None:
    """``mkdocs build`` into a fresh folder beside ``target``, which then takes its place, so
    a failed or interrupted build never leaves half a site where the docs were."""
    private_folder(target.parent)  # the data folder: the user's alone, as everywhere
    fresh = Path(tempfile.mkdtemp(prefix=".docs.", dir=target.parent))
    try:
        build = ["build", "--quiet", "--clean", "--site-dir", str(fresh)]
        done = subprocess.run(
            [sys.executable, "-m", "mkdocs", *build, "--config-file", str(clone / "mkdocs.yml")],
            cwd=clone,
            # The docs' hook quotes this package's CLI help: the package run here.
            env={**os.environ, "PYTHONPATH": _with_path(clone)},
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise UserError(
                f"mkdocs could not build the docs in {clone}:\n{done.stderr.strip()}\n"
                f"(`{BUILD}` in {clone} shows the same)"
            )
        old = _old(target)
        shutil.rmtree(old, ignore_errors=True)  # left by a build interrupted at this step
        with contextlib.suppress(FileNotFoundError):
            target.rename(old)
        fresh.rename(target)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)


def _with_path(clone: Path) -> str:
    """``$PYTHONPATH`` with the clone's code first: the app's folder, the SDK's and the
    bench's (whose command's help the docs quote too)."""
    folders = [str(clone), str(clone / "sdk"), str(clone / "bench")]
    rest = os.environ.get("PYTHONPATH")
    return os.pathsep.join([*folders, rest] if rest else folders)


def _has_display() -> bool:
    """Whether a browser can be shown: a browser named in $BROWSER, a desktop (macOS,
    Windows), or an X or Wayland display."""
    if os.environ.get("BROWSER") or sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
