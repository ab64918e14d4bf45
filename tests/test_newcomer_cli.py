"""What a newcomer met on the command line (issue 30), each through ``sandbox`` as they ran it:
a closed pipe, an unknown outcome, a built-in brain by name, an address not this machine's,
out-of-range load values, a sub-command's own help and usage, the test extra."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from readme import section

from sandbox.paths import HOME_ENV

REPO = Path(__file__).resolve().parent.parent
SCRIPT = 'ms_per_word = 20\n[[step]]\nsay = "what are your opening hours"\n'


def sandbox(home: Path, *args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    """``sandbox ARGS`` in its own process, with a data dir of the test's own."""
    options: dict[str, object] = {"capture_output": True, "timeout": 120, **kwargs}
    if "stdout" in kwargs:
        options.pop("capture_output")
        options["stderr"] = subprocess.PIPE
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "sandbox.cli", *args],
        text=True,
        env={**os.environ, HOME_ENV: str(home)},
        **options,
    )


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir holding two finished calls."""
    home = tmp_path_factory.mktemp("home")
    script = home / "call.toml"
    script.write_text(SCRIPT)
    for _ in range(2):
        done = sandbox(home, "call", "--script", str(script), "--idle-ms", "0")
        assert done.returncode == 0, done.stderr
    return home


def _session_ids(home: Path) -> list[str]:
    listing = sandbox(home, "sessions", "list", "--json")
    assert listing.returncode == 0, listing.stderr
    return [json.loads(line)["id"] for line in listing.stdout.splitlines()]


@pytest.mark.parametrize("verb", ["list", "show"])
def test_output_into_a_closed_pipe_ends_quietly(stored: Path, verb: str) -> None:
    """``sandbox sessions list | head``: the reader went away, as a Unix tool takes it."""
    args = ["sessions", verb] + ([_session_ids(stored)[0]] if verb == "show" else [])
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has already gone: every write meets a closed pipe
    try:
        done = sandbox(stored, *args, stdout=write_end)
    finally:
        os.close(write_end)
    assert done.stderr == ""
    assert done.returncode == 128 + signal.SIGPIPE


def test_an_unknown_outcome_is_refused_naming_the_valid_ones(stored: Path) -> None:
    for args in (["sessions", "list"], ["replay", "--all", "--brain", "builtin"]):
        done = sandbox(stored, *args, "--outcome", "bogus")
        assert done.returncode == 2, done.stdout
        assert "no sessions" not in done.stdout and "Traceback" not in done.stderr
        assert "'bogus'" in done.stderr
        for outcome in ("completed", "no_answer", "not_reached", "unfinished"):
            assert outcome in done.stderr
    listed = sandbox(stored, "sessions", "list", "--outcome", "completed", "--json")
    assert len(listed.stdout.splitlines()) == 2


@pytest.mark.parametrize("name", ["builtin", "concierge"])
def test_a_call_dials_a_built_in_brain_by_name(tmp_path: Path, name: str) -> None:
    script = tmp_path / "call.toml"
    script.write_text(SCRIPT)
    done = sandbox(tmp_path, "call", "--script", str(script), "--brain", name, "--idle-ms", "0")
    assert done.returncode == 0, done.stderr + done.stdout
    assert "outcome completed" in done.stdout


def test_a_brain_that_is_neither_a_name_nor_a_url_stores_no_session(tmp_path: Path) -> None:
    script = tmp_path / "call.toml"
    script.write_text(SCRIPT)
    done = sandbox(tmp_path, "call", "--script", str(script), "--brain", "bogus")
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].startswith(
        "sandbox call: error: argument --brain: 'bogus' is neither"
    )
    assert "concierge" in done.stderr and "ws://" in done.stderr
    assert _session_ids(tmp_path) == []


def test_load_dials_a_built_in_brain_by_name(tmp_path: Path) -> None:
    script = tmp_path / "call.toml"
    script.write_text(SCRIPT)
    done = sandbox(tmp_path, "load", "--brain", "echo", "--script", str(script), "--calls", "2")
    assert done.returncode == 0, done.stderr + done.stdout
    assert "2 calls to the built-in echo brain" in done.stdout


def test_replay_redrives_against_a_built_in_brain_by_name(stored: Path) -> None:
    done = sandbox(stored, "replay", _session_ids(stored)[0], "--brain", "concierge")
    assert done.returncode == 0, done.stderr + done.stdout
    assert done.stdout.startswith("re-drove session")


def test_a_brain_on_an_address_not_this_machines_says_so(tmp_path: Path) -> None:
    done = sandbox(tmp_path, "brain", "echo", "--host", "10.9.9.9", "--port", "0")
    assert done.returncode == 1
    assert "10.9.9.9 is not an address of this machine" in done.stderr
    assert "another brain" not in done.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--ramp", "inf"], "--ramp: must be a number of seconds from 0 to 3,600 (got inf)"),
        (["--ramp", "nan"], "--ramp: must be a number of seconds from 0 to 3,600 (got nan)"),
        (
            ["--concurrency", "0"],
            "--concurrency: must be a whole number from 1 to 10,000 (got 0)",
        ),
        (
            ["--concurrency", "-3"],
            "--concurrency: must be a whole number from 1 to 10,000 (got -3)",
        ),
    ],
)
def test_load_refuses_values_out_of_range(tmp_path: Path, args: list[str], words: str) -> None:
    script = tmp_path / "call.toml"
    script.write_text(SCRIPT)
    base = ["load", "--brain", "ws://127.0.0.1:9/brain", "--script", str(script), "--calls", "2"]
    done = sandbox(tmp_path, *base, *args, timeout=30)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == f"sandbox load: error: argument {words}"


def test_a_sub_command_has_its_own_description_and_usage(tmp_path: Path) -> None:
    helped = sandbox(tmp_path, "sessions", "list", "--help")
    assert helped.stdout.startswith("usage: sandbox sessions list")
    assert "sessions, newest first" in helped.stdout.split("options:")[0]
    wrong = sandbox(tmp_path, "sessions", "list", "--bogus")
    assert wrong.returncode == 2
    assert wrong.stderr.startswith("usage: sandbox sessions list")
    assert "unrecognized arguments: '--bogus'" in wrong.stderr


def test_the_guides_driver_example_installs_what_it_needs() -> None:
    """The driver example ("Writing a brain") is a pytest test: the ``test`` extra brings
    pytest along, and the guide says so just before it."""
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    test_extra = {re.split(r"[<>=\[ ]", req)[0] for req in extras["optional-dependencies"]["test"]}
    assert {"pytest", "pytest-asyncio"} <= test_extra
    guide = section("Writing a brain")
    example = guide.index("def test_history_is_what_the_caller_heard")
    assert "pip install '.[test]'" in guide[example - 1500 : example]  # from a clone: not on PyPI


RELOADED = """
from sandbox.sdk import Brain

class Greeter(Brain):
    async def greet(self, session):
        return "{word}"
"""


def _lines(process: subprocess.Popen[str]) -> Iterator[str]:
    assert process.stdout is not None
    for line in process.stdout:
        yield line.rstrip("\n")


@pytest.mark.slow  # CI runs --reload end to end in tests/test_brain_reload*.py
def test_reload_counts_only_calls_still_in_progress(tmp_path: Path) -> None:
    brain = tmp_path / "greeter.py"
    brain.write_text(RELOADED.format(word="Hello."))
    script = tmp_path / "call.toml"
    script.write_text(SCRIPT)
    serving = subprocess.Popen(
        [sys.executable, "-m", "sandbox.cli", "brain", str(brain), "--reload", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, HOME_ENV: str(tmp_path), "PYTHONUNBUFFERED": "1"},
    )
    try:
        lines = _lines(serving)
        url = next(line.split()[0] for line in lines if line.startswith("  ws://"))
        for _ in range(3):
            done = sandbox(tmp_path, "call", "--script", str(script), "--brain", url)
            assert done.returncode == 0, done.stderr
        time.sleep(0.5)  # the calls' sessions close on the brain's side too
        brain.write_text(RELOADED.format(word="Hello again."))
        reloaded = next(line for line in lines if line.startswith("Reloaded"))
        assert reloaded == "Reloaded greeter.py: serving Greeter."
    finally:
        serving.send_signal(signal.SIGINT)
        serving.wait(timeout=10)
