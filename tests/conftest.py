"""Fixtures shared by the whole suite."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pulse as _pulse
import pytest
import small_disk as _small_disk
from report_check import check_saved_reports

from sandbox.audio.stt import Transcriber
from sandbox.audio.tts import Synthesizer
from sandbox.paths import HOME_ENV


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``-n``), the tests that play or record sound run on one worker,
    one after another: they measure timings that other audio work beside them would skew."""
    for item in items:
        if item.get_closest_marker("audio") or "pulse" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("devices"))


@pytest.fixture(scope="session", autouse=True)
def worker_devices() -> Iterator[None]:
    """Under pytest-xdist, this worker's own virtual devices, made ready and routed to before
    any test runs: an app a test starts without asking for sound then plays into them, never
    into the devices another worker records."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        yield
        return
    with contextlib.suppress(_pulse.PulseUnavailable):  # the tests needing sound say so
        _pulse.ensure()
    yield


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


@pytest.fixture(scope="session")
def transcriber() -> Transcriber:
    """Whisper tiny.en, loaded once for the session (a load takes seconds)."""
    return Transcriber.load()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs: a disk that fills (see ``small_disk.py``)."""
    with _small_disk.mounted(tmp_path / "small") as folder:
        yield folder


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A data dir of the test's own (keys, the session store, logs); its path. Every
    report the test saved there must then validate against ``sandbox schema report``."""
    folder = tmp_path / "home"
    monkeypatch.setenv(HOME_ENV, str(folder))
    yield folder
    check_saved_reports(folder)
