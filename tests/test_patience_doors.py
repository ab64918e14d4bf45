"""A patience off the scale meets the same sentence at every door: the command line, a Config
mid-call, and the SDK's SttConfig (and the endpointer behind them)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_rig import sandbox_cli

from sandbox.audio.endpointer import Endpointer
from sandbox.call.settings import Settings
from sandbox.harness import VoqalizeDriver
from sandbox.paths import HOME_ENV
from sandbox.sdk import Brain, Config, ConfigError, RequestRejected, Session, SttConfig
from sandbox.wire import pb


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    monkeypatch.setenv(HOME_ENV, str(folder))
    return folder


@dataclass(frozen=True)
class PastTheSdk(Config):
    """A Config as a brain with no SDK check sends it: the patience straight onto the wire."""

    patience: int = 0

    def to_pb(self) -> pb.Config:
        return pb.Config(stt=pb.SttConfig(patience=self.patience))


class AsksForPatience(Brain):
    """Asks, at the start of the call, for a patience, and keeps Voqalize's refusal."""

    def __init__(self, patience: int) -> None:
        self.patience = patience
        self.refusal: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def on_session_start(self, session: Session) -> None:
        try:
            await session.configure(PastTheSdk(patience=self.patience))
        except RequestRejected as exc:
            self.refusal.set_result(exc.detail)
        else:
            self.refusal.set_result("accepted")


async def _cli_words(home: Path, tmp_path: Path, patience: int) -> str:
    """What ``sandbox call --patience N`` says, past its own prefix."""
    script = tmp_path / "call.toml"
    script.write_text('[[step]]\nsay = "hello"\n')
    args = ("call", "--script", str(script), "--patience", str(patience))
    done = await asyncio.to_thread(sandbox_cli, home, *args)
    assert done.returncode == 2 and done.stdout == "", done.stdout + done.stderr
    *_, line = done.stderr.strip().splitlines()  # argparse's usage, then one line
    prefix = "sandbox call: error: argument --patience: "
    assert line.startswith(prefix), done.stderr
    return line.removeprefix(prefix)


def _sdk_words(patience: int) -> str:
    with pytest.raises(ConfigError) as refused:
        SttConfig(patience=patience)
    return str(refused.value)


def _endpointer_words(patience: int) -> str:
    with pytest.raises(ValueError) as refused:
        Endpointer(patience)
    return str(refused.value)


async def test_a_patience_off_the_scale_is_refused_in_the_same_words_at_every_door(
    home: Path, tmp_path: Path
) -> None:
    """Seed 001, "Waiting through a pause (stt.patience)": "A patience off the scale is
    refused at whichever door it arrives at, in the same words. [...] Mid-call it comes back
    as a RequestRejected whose detail names the range, and the session continues at the
    patience it already had [...] SttConfig raises ConfigError in your own process." Issue
    39: "One sentence, one place, used by all three doors." A negative cannot cross the wire
    (the field is a uint32): it meets the other doors."""
    words = "stt.patience must be between 0 and 10 (got 11)"
    assert await _cli_words(home, tmp_path, 11) == words
    assert _sdk_words(11) == words
    assert _endpointer_words(11) == words

    brain = AsksForPatience(11)
    async with VoqalizeDriver(brain, settings=Settings(patience=4, idle_ms=0)) as driver:
        assert await asyncio.wait_for(brain.refusal, 10) == words
        assert driver.ended is None  # the brain lost the change, not the call
        assert "patience 4" in driver.report()["settings"]

    negative = "stt.patience must be between 0 and 10 (got -1)"
    assert await _cli_words(home, tmp_path, -1) == negative
    assert _sdk_words(-1) == negative
    assert _endpointer_words(-1) == negative
