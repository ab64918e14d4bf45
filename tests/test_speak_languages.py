"""tts.language served by a voice that speaks it: the command line picks one, a Config asking
a voice for a language it lacks is refused naming the voices that speak it (seed 001,
"Both legs carry a language")."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from cli_rig import sandbox_cli

from sandbox.audio import voices
from sandbox.call.settings import Settings
from sandbox.cli import main
from sandbox.harness import VoqalizeDriver
from sandbox.paths import HOME_ENV
from sandbox.sdk import Brain, Config, RequestRejected, Session, SttConfig, TtsConfig


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    monkeypatch.setenv(HOME_ENV, str(folder))
    return folder


def script(tmp_path: Path) -> Path:
    path = tmp_path / "call.toml"
    path.write_text('ms_per_word = 20\n[[step]]\nsay = "hallo"\n')
    return path


def test_speak_language_picks_an_installed_voice_that_speaks_it(home: Path, tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    args = ("--speak-language", "de", "--idle-ms", "0", "--report", str(report))
    done = sandbox_cli(home, "call", "--script", str(script(tmp_path)), *args)
    assert done.returncode == 0, done.stderr
    settings = json.loads(report.read_text())["settings"]
    assert "voice espeak_male" in settings and "speak de" in settings and "hear en" in settings


def test_a_voice_named_that_does_not_speak_the_language_is_refused_naming_who_does(
    home: Path, tmp_path: Path
) -> None:
    args = ("--voice", "joe", "--speak-language", "hi")
    done = sandbox_cli(home, "call", "--script", str(script(tmp_path)), *args)
    assert done.returncode == 1
    assert "voice joe does not speak hi; it speaks: en; hi is spoken by: espeak_female, " in (
        done.stderr
    )
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_a_language_no_voice_speaks_is_refused_in_one_line(home: Path, tmp_path: Path) -> None:
    done = sandbox_cli(home, "call", "--script", str(script(tmp_path)), "--speak-language", "bho")
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "sandbox call: --speak-language bho: no voice of the sandbox speaks bho "
        "(see `sandbox voices`)"
    )
    assert not list(home.glob("sessions/*.json"))


class AsksForGerman(Brain):
    """Asks for German with the call's voice, then with a voice that speaks it."""

    def __init__(self) -> None:
        self.answers: asyncio.Future[list[str]] = asyncio.get_running_loop().create_future()

    async def on_session_start(self, session: Session) -> None:
        answers = []
        for voice in (None, "espeak_female"):
            config = Config(tts=TtsConfig(voice=voice, language="de"), stt=SttConfig("de"))
            try:
                await session.configure(config)
            except RequestRejected as exc:
                answers.append(exc.detail)
            else:
                answers.append("accepted")
        self.answers.set_result(answers)


async def test_a_config_for_a_language_the_voice_lacks_is_rejected_naming_who_speaks_it() -> None:
    brain = AsksForGerman()
    async with VoqalizeDriver(brain, settings=Settings(idle_ms=0)) as driver:
        rejected, accepted = await asyncio.wait_for(brain.answers, 10)
        assert rejected == (
            "voice joe does not speak de; it speaks: en; de is spoken by: espeak_female, "
            "espeak_male"
        )
        assert accepted == "accepted"
        assert driver.ended is None
        assert "voice espeak_female · speak de · hear de" in driver.report()["settings"]


def test_without_espeak_ng_a_language_only_it_speaks_names_the_voices_that_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(voices, "espeak_installed", lambda: False)
    assert main(["call", "--script", str(script(tmp_path)), "--speak-language", "de"]) == 1
    assert capsys.readouterr().err == (
        "sandbox call: --speak-language de: no installed voice speaks it; espeak_female, "
        "espeak_male, thorsten would (espeak-ng is a system package, not a Python one: "
        "install it (Debian/Ubuntu: sudo apt install espeak-ng) to use the espeak voices)\n"
    )
