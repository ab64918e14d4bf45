"""examples/llm-brain: a brain on an OpenAI-compatible chat endpoint, tested here with no
network against a real local HTTP server that speaks the streaming chat-completions protocol
(its fake_llm.py): its caller scripts through pytest (the plugin and its conftest) and through
``sandbox test``, and a barge-in that closes the model's stream before its end."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_llm import LONG, REPLIES, FakeLlm
from llm_brain import GOODBYE, NUDGES, LlmBrain
from openai import AsyncOpenAI

from sandbox.call.settings import Settings
from sandbox.call.units import Fate
from sandbox.harness import DriverError, VoqalizeDriver
from sandbox.paths import HOME_ENV
from sandbox.sdk import serve

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "llm-brain"


@pytest.fixture
def slow_llm() -> Iterator[FakeLlm]:
    """A model that writes a long answer slowly: 40 pieces, 0.1 s apart."""
    server = FakeLlm([("everything", LONG), ("hours", ["Nine to five."])], gap_s=0.1).start()
    yield server
    server.stop()


def _example(tmp_path: Path) -> Path:
    folder = tmp_path / "llm-brain"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def test_its_caller_scripts_pass_through_pytest(tmp_path: Path) -> None:
    folder = _example(tmp_path)
    env = {**os.environ, HOME_ENV: str(tmp_path / "home")}
    others = ["-p", "no:textual-snapshot", "-p", "no:locust", "-p", "no:benchmark"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *others, "."],
        cwd=folder, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 passed" in done.stdout


async def test_its_caller_scripts_pass_through_sandbox_test(tmp_path: Path, home: Path) -> None:
    folder = _example(tmp_path)
    llm = FakeLlm(REPLIES).start()
    server = await serve(lambda: LlmBrain(AsyncOpenAI(base_url=llm.url, api_key="t"), "fake"))
    try:
        env = {**os.environ, HOME_ENV: str(home)}  # the keys the brain served here trusts
        command = [
            sys.executable,
            "-m",
            "sandbox.cli",
            "test",
            str(folder),
            "--brain",
            server.url(),
        ]
        done = await asyncio.to_thread(
            subprocess.run, command, env=env, capture_output=True, text=True, timeout=300
        )
    finally:
        await server.close()
        llm.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 passed, 0 failed, 0 broken" in done.stdout
    # The tool ran between two model requests, the second one given its result.
    second = next(r for r in llm.requests if r.messages[-1]["role"] == "tool")
    assert "pottery" in second.messages[-1]["content"]


async def test_a_barge_in_closes_the_models_stream_and_history_holds_what_was_heard(
    slow_llm: FakeLlm,
) -> None:
    brain = LlmBrain(AsyncOpenAI(base_url=slow_llm.url, api_key="test"), "fake")
    async with VoqalizeDriver(brain, ms_per_word=20) as call:
        await call.say("Tell me everything about every class.")
        await call.barge_in("Sorry, just the hours please", after_words=6)
        await call.settle()
        units = call.units
    long = slow_llm.requests[0]
    for _ in range(50):  # the server notices the close at its next piece, 0.1 s apart
        if long.closed_early:
            break
        await asyncio.sleep(0.1)
    assert long.closed_early and long.pieces_sent < long.pieces // 2, long
    cut = next(u for u in units if u.fate is Fate.BARGED)
    assert cut.heard and cut.heard != cut.generated and "Class number 1 " in cut.heard
    # The brain remembers the prefix the caller heard, not what the model went on writing.
    said = [m["content"] for m in brain.history if m["role"] == "assistant"]
    assert cut.heard in said and cut.generated not in said
    assert said[-1] == "Nine to five."


async def test_an_absent_caller_is_nudged_twice_told_goodbye_and_let_go(
    slow_llm: FakeLlm,
) -> None:
    """docs/llm-brain.md's idle handler: nudge, nudge, goodbye, and the brain's End."""
    brain = LlmBrain(AsyncOpenAI(base_url=slow_llm.url, api_key="test"), "fake")
    async with VoqalizeDriver(brain, ms_per_word=20, settings=Settings(idle_ms=1000)) as call:
        await call.settle()
        with pytest.raises(DriverError, match="the call has ended, by brain"):
            await call.idle(60_000)  # far longer than the brain waits
        assert call.heard[1:] == [*NUDGES, GOODBYE]
    assert slow_llm.requests == []  # an idle line asks no model
