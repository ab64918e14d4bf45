"""Fixtures shared by the whole suite."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import pulse as _pulse
import pytest

from sandbox.audio.tts import Synthesizer


@pytest.fixture(scope="session")
def pulse() -> Iterator[ModuleType]:
    """PulseAudio's virtual speaker and microphone, ready; yields the ``pulse`` helper module."""
    _pulse.ensure()
    yield _pulse
    _pulse.shutdown()


@pytest.fixture(scope="session")
def synthesizer() -> Synthesizer:
    """The default Piper voice, loaded and warmed up once for the session."""
    return Synthesizer.load()
