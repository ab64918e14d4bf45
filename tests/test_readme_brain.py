""" "Writing a brain", followed as a new author would: the README's brain saved as
``mymodule.py`` in a fresh folder and served by its own commands (a real ``sandbox brain``
process, a real ``sandbox call`` over a real WebSocket), edited under ``--reload``, broken,
and raising mid-call; and the README's test of it run by pytest as written."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from brain_process import call, run, serving
from readme import code_block, commands
from websockets.asyncio.client import ClientConnection

from sandbox.wire import decode, encode, pb
from sandbox.wire.dial import dial
from sandbox.wire.tokens import load_or_create_keys, mint_token

SECTION = "Writing a brain"
SESSION = "0a1b2c3d-0000-4000-8000-00000000b0a1"
SAY_HELLO = 'ms_per_word = 20\n[[step]]\nsay = "hello there"\n'


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The author's folder, holding the README's brain as ``mymodule.py``."""
    here = tmp_path / "author"
    here.mkdir()
    (here / "mymodule.py").write_text(code_block(SECTION, "python"))
    return here


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def _brain_args(spec: str) -> list[str]:
    """The README's own ``sandbox brain …`` command for ``spec``, less its port."""
    for words in commands(SECTION):
        if words[:3] == ["sandbox", "brain", spec]:
            return words[2:-2] if words[-2] == "--port" else words[2:]
    raise AssertionError(f"the README shows no `sandbox brain {spec}`")


@pytest.mark.parametrize("spec", ["mymodule:Greeter", "./mymodule.py:Greeter", "./mymodule.py"])
def test_the_readme_brain_serves_from_the_authors_folder(
    spec: str, folder: Path, home: Path
) -> None:
    with serving(folder, home, *_brain_args(spec)) as (url, _proc):
        result = call(folder, home, SAY_HELLO, "--brain", url, "--report", "report.json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads((folder / "report.json").read_text())
    assert [u["heard"] for u in report["units"]] == ["Hi! How can I help?", "You said: hello there"]


def test_the_readme_test_of_the_brain_passes_as_written(folder: Path) -> None:
    (folder / "test_mymodule.py").write_text(code_block(SECTION, "python", 1))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_mymodule.py"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


async def _turn(ws: ClientConnection, turn: int, text: str) -> str:
    """Send a UserMessage and collect the text of its answer up to its SpeechEnd."""
    await ws.send(encode(pb.UserMessage(turn_id=turn, text=text)))
    answer, said = 0, ""
    while True:
        env = decode(await asyncio.wait_for(ws.recv(), 10))
        if env.HasField("speech_start") and env.speech_start.turn_id == turn:
            answer = env.speech_start.speech_id
        elif env.HasField("speech_chunk") and env.speech_chunk.speech_id == answer:
            said += env.speech_chunk.text
        elif env.HasField("speech_end") and env.speech_end.speech_id == answer:
            return said


async def _line(proc: subprocess.Popen[str], containing: str) -> str:
    """The next line of the brain's output that contains ``containing``."""
    assert proc.stdout is not None
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        line = await asyncio.to_thread(proc.stdout.readline)
        if containing in line:
            return line
    raise AssertionError(f"the brain never printed {containing!r}")


async def test_reload_moves_the_call_in_progress_onto_the_edited_code(
    folder: Path, home: Path
) -> None:
    brain = folder / "mymodule.py"
    with serving(folder, home, "./mymodule.py", "--reload") as (url, proc):
        keys = load_or_create_keys(home / "keys")
        async with await dial(url, SESSION, mint_token(keys, SESSION)) as ws:
            await ws.send(encode(pb.SessionStart(turn_id=1, session_id=SESSION, wire_version=3)))
            assert await _turn(ws, 2, "one") == "You said: one"

            brain.write_text(brain.read_text().replace("You said:", "I heard:"))
            assert "Reloaded mymodule.py: serving Greeter" in await _line(proc, "Reloaded")
            assert await _turn(ws, 3, "two") == "I heard: two"  # same call, no redial

            good = brain.read_text()
            brain.write_text(good.replace("class Greeter(Brain):", "class Greeter(Brain)"))
            broken = await _line(proc, "SyntaxError")
            assert "Still serving the previous Greeter" in await _line(proc, "Still serving")
            assert "Traceback" not in broken
            assert await _turn(ws, 4, "three") == "I heard: three"  # the last good code


def test_a_syntax_error_is_shown_as_the_authors_own(folder: Path, home: Path) -> None:
    source = (folder / "mymodule.py").read_text()
    (folder / "mymodule.py").write_text(source.replace("def greet(self, session):", "def greet("))
    line = next(n for n, text in enumerate(source.splitlines(), 1) if "def greet" in text)
    result = run(folder, home, "brain", *_brain_args("mymodule:Greeter"), "--port", "0")
    assert result.returncode == 1
    err = result.stderr
    assert "The error is in your code, not the sandbox's" in err
    assert f'File "mymodule.py", line {line}' in err and "SyntaxError" in err
    for not_theirs in ("Traceback", "please report", "importlib", "sandbox/"):
        assert not_theirs not in err


def test_an_error_as_the_module_runs_is_trimmed_to_their_line(folder: Path, home: Path) -> None:
    (folder / "helpers.py").write_text("def setup():\n    return 1 / 0\n")
    source = (folder / "mymodule.py").read_text()
    (folder / "mymodule.py").write_text("import helpers\nhelpers.setup()\n" + source)
    result = run(folder, home, "brain", "./mymodule.py", "--port", "0")
    assert result.returncode == 1
    assert result.stderr.splitlines()[1:] == [
        '  File "mymodule.py", line 2, in <module>',
        "    helpers.setup()",
        '  File "helpers.py", line 2, in setup',
        "    return 1 / 0",
        "           ~~^~~",
        "ZeroDivisionError: division by zero",
    ]


RAISING = """
from sandbox.sdk import Brain, SpeechChunk, SpeechEnd, SpeechStart

class Fragile(Brain):
    async def on_user_message(self, session, msg):
        if "break" in msg.text:
            raise RuntimeError("my bug")
        yield SpeechStart()
        yield SpeechChunk(f"You said: {msg.text}")
        yield SpeechEnd()
"""
RAISING_SCRIPT = """
ms_per_word = 20
[[step]]
say = "please break"
[[step]]
say = "and now?"
"""


def test_a_brain_that_raises_mid_call_shows_it_in_place_and_the_turn_is_over(
    folder: Path, home: Path
) -> None:
    (folder / "fragile.py").write_text(RAISING)
    with serving(folder, home, "fragile.py") as (url, proc):
        started = time.monotonic()
        result = call(folder, home, RAISING_SCRIPT, "--brain", url, "--report", "report.json")
        took = time.monotonic() - started
        proc.terminate()
        _out, brain_log = proc.communicate(timeout=10)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    error = "  ✖ brain error INTERNAL: on_user_message raised RuntimeError: my bug"
    # In place: after the turn that raised, before the next one, which nothing interrupts
    # (the transcript prints as the call goes, from the first line).
    assert lines[:4] == [
        "  caller  [turn 2] please break",
        error,
        "  caller  [turn 3] and now?",
        "  bot     [unit 1, turn 3] 'You said: and now?'",
    ]
    assert took < 8  # the script's next step ran at once: no 10 s stall, no 30 s give-up
    report = json.loads((folder / "report.json").read_text())
    assert [f["type"] for f in report["frames"]].count("interruption") == 0
    assert report["stalls"] == [] and report.get("script_notes", []) == []
    # The brain's console shows the author's traceback, trimmed to their line.
    assert 'File "fragile.py", line 7, in on_user_message' in brain_log
    assert "connection.py" not in brain_log and "Traceback" not in brain_log
