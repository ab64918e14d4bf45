"""The caller scripts (test_*.toml) call this folder's brain, served in-process for each, on
a scripted chat-completions server of its own (fake_llm.py): no network, no model."""

from collections.abc import Callable, Iterator

import pytest
from fake_llm import REPLIES, FakeLlm
from llm_brain import LlmBrain
from openai import AsyncOpenAI


@pytest.fixture(scope="session")
def fake_llm() -> Iterator[FakeLlm]:
    server = FakeLlm(REPLIES, gap_s=0.02).start()
    yield server
    server.stop()


@pytest.fixture
def voqalize_brain(fake_llm: FakeLlm) -> Callable[[], LlmBrain]:
    return lambda: LlmBrain(AsyncOpenAI(base_url=fake_llm.url, api_key="test"), "fake")
