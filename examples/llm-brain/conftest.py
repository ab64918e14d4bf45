"""The caller scripts (test_*.toml) call this folder's brain, served in-process for each, on
a scripted chat-completions server of its own (fake_llm.py): no network, no model."""

from collections.abc import Callable, Iterator

import pytest
from fake_llm import FakeLlm, ToolCall
from llm_brain import LlmBrain
from openai import AsyncOpenAI

#: What the scripted model answers, by words in the conversation's last message.
RULES = [
    ("hours", ["We're open nine to five, ", "Monday to Saturday."]),
    ("booking", ToolCall("check_booking", {"name": "Ada"})),
    ("pottery", ["You're booked for ", "Thursday's pottery class at six."]),
    ("refund", ["Of course, ", "I guarantee a full refund."]),
    ("everything", [f"Class number {n} is on at {n} o'clock, " for n in range(1, 40)]),
]


@pytest.fixture(scope="session")
def fake_llm() -> Iterator[FakeLlm]:
    server = FakeLlm(RULES, gap_s=0.02).start()
    yield server
    server.stop()


@pytest.fixture
def voqalize_brain(fake_llm: FakeLlm) -> Callable[[], LlmBrain]:
    return lambda: LlmBrain(AsyncOpenAI(base_url=fake_llm.url, api_key="test"), "fake")
