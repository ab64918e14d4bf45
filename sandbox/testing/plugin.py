"""The pytest plugin: caller scripts (``test_*.toml``) collected and run as tests.

Registered through the ``pytest11`` entry point (``pip install 'voqalize-sandbox[test]'``),
so ``pytest`` in a brain's repository finds its scripts beside its Python tests. Each
script is one test item: a real call over the real WebSocket to the brain the
``voqalize_brain`` fixture names, its expectations judged once it has ended. A failure's
message is each expectation that did not hold and what the caller heard.

The brain is ``--voqalize-brain URL|NAME`` (the built-in brain by default), or the author's
own: override the fixture in a ``conftest.py`` and return the Brain class (any callable that
makes a Brain), served in-process on loopback for each script::

    @pytest.fixture
    def voqalize_brain():
        return Greeter

The plugin does nothing until a ``test_*.toml`` is collected, and imports nothing of the
sandbox until one runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

#: Caller scripts are files named so, as Python tests are ``test_*.py``.
PREFIX, SUFFIX = "test_", ".toml"


def pytest_addoption(parser: pytest.Parser) -> None:
    """--voqalize-brain and --voqalize-audio."""
    group = parser.getgroup("voqalize", "Voqalize caller scripts (test_*.toml)")
    group.addoption(
        "--voqalize-brain",
        type=_brain,
        metavar="URL|NAME",
        help="the brain the caller scripts call: a WebSocket URL or a built-in brain's name "
        "(default: the voqalize_brain fixture's, the built-in brain)",
    )
    group.addoption(
        "--voqalize-audio",
        choices=("sim", "real"),
        default="sim",
        help="sim: text turns and simulated playout (default); real: each line spoken into "
        "the microphone path",
    )


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A ``test_*.toml`` is a caller script; every other file is left to others."""
    if file_path.suffix == SUFFIX and file_path.name.startswith(PREFIX):
        found: pytest.Collector = ScriptFile.from_parent(parent, path=file_path)
        return found
    return None


def _brain(spec: str) -> str:
    """--voqalize-brain's value, refused in words as ``sandbox test --brain``'s is (imported
    only when the option is given: the plugin imports nothing of the sandbox before)."""
    from sandbox.harness.builtin import brain_spec
    from sandbox.option_values import checked

    return checked(brain_spec)(spec)


@pytest.fixture
def voqalize_brain(request: pytest.FixtureRequest) -> str | Callable[[], Any]:
    """The brain the caller scripts call: ``--voqalize-brain``, or the built-in brain.
    Override it to return your own Brain class, served in-process for each script."""
    spec: str | None = request.config.getoption("voqalize_brain")
    return spec or "builtin"


class ScriptFile(pytest.File):
    """One caller script file: one test."""

    def collect(self) -> list[pytest.Item]:
        """The script as a test item."""
        return [ScriptItem.from_parent(self, name=self.path.stem, callobj=_play)]


class ScriptItem(pytest.Function):
    """A caller script run as a test; it asks for fixtures as a test function does."""

    def reportinfo(self) -> tuple[Path, int, str]:
        """The script itself, not this plugin's function, as where the test is."""
        return self.path, 0, f"caller script {self.path.name}"


def _play(voqalize_brain: str | Callable[[], Any], request: pytest.FixtureRequest) -> None:
    """Run the requesting item's script against the brain; fail with its problems, in
    words and with no traceback (this function's lines would tell the author nothing)."""
    from sandbox.testing.script_results import PASSED  # only once a script runs
    from sandbox.testing.script_tests import run_scripts

    path = request.node.path
    audio: str = request.config.getoption("voqalize_audio")
    (result,) = asyncio.run(run_scripts([path], voqalize_brain, audio)).results
    if result.status != PASSED:
        lines = [f"{path.name} {result.status}:", *(f"  {p}" for p in result.problems)]
        if result.session_id is not None:
            lines.append(f"  session {result.session_id}")
        pytest.fail("\n".join(lines), pytrace=False)
