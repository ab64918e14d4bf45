"""The app with real audio: PortAudio on PulseAudio virtual devices, Whisper, Piper, the
playout clock, against the built-in brain. A caller WAV is played into the microphone and
the screen is read for the transcript and the heard text — in a pilot, and as a user runs
it: ``sandbox run`` in tmux."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from types import ModuleType

import pytest
from caller_audio import espeak, join, silence, word_errors, words, write_wav
from readme import commands
from ui_rig import SIZE, host_of, line_texts, say, use_home, wait_until
from ui_tmux import sandbox_run

from sandbox.audio.audio_options import AudioOptions
from sandbox.audio.engine import AudioEngine
from sandbox.call.effects import CallState
from sandbox.call.settings import Settings
from sandbox.call.units import Fate
from sandbox.host.launch import CallOptions
from sandbox.ui.app import SandboxApp
from sandbox.ui.engine_audio import EngineAudio
from sandbox.ui.runner import CallSetup

pytestmark = pytest.mark.audio

HELLO = "Hello, can you help me?"
#: Model loading, the greeting spoken in real time, Whisper: generous, as CI machines vary.
AUDIO_WAIT_S = 60.0


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_home(monkeypatch, tmp_path)


def caller_wav(tmp_path: Path, text: str) -> Path:
    return write_wav(tmp_path / "caller.wav", join(silence(200), espeak(text), silence(300)))


def audio_app() -> SandboxApp:
    options = CallOptions(settings=Settings(idle_ms=0))
    return SandboxApp(CallSetup(options, EngineAudio(AudioEngine(AudioOptions()))))


async def test_a_spoken_turn_is_transcribed_answered_and_cut_by_key(
    pulse: ModuleType, tmp_path: Path
) -> None:
    wav = caller_wav(tmp_path, HELLO)
    app = audio_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.host is not None, "models and the call", AUDIO_WAIT_S)
        core = host_of(app).core
        await wait_until(
            pilot, lambda: core.state is CallState.LISTENING, "the greeting", AUDIO_WAIT_S
        )
        greeting = core.units[0]
        assert greeting.fate is Fate.PLAYED and greeting.heard == greeting.generated
        assert app.banner.has_class("-hidden")
        assert app.status.info.meter.startswith("mic ")

        await asyncio.to_thread(pulse.play_into_mic, wav)
        await wait_until(pilot, lambda: len(core.units) >= 2, "the answer", AUDIO_WAIT_S)
        said = next(t for t in line_texts(app) if t.startswith("you said · turn 2"))
        assert word_errors(HELLO, said.split("\n", 1)[1]) <= 2, said
        assert app.status.info.latency.startswith("turn 2 · ")
        assert "after voice end (committed " in app.status.info.latency

        answer = core.units[1]
        await wait_until(pilot, lambda: answer.cursor.words_heard >= 3, "3 words", AUDIO_WAIT_S)
        await pilot.press("f2")  # barge in by key, as in a demo without a microphone
        await wait_until(pilot, lambda: answer.fate is Fate.BARGED, "the cut")
        entry = app.conversation.unit_line(answer.speech_id)
        assert entry is not None
        total = len(answer.generated.split())
        assert f"✂ {answer.cursor.words_heard} of {total} words heard" in entry.text.plain
        assert 3 <= answer.cursor.words_heard < total


async def test_a_muted_microphone_lets_nothing_through(pulse: ModuleType, tmp_path: Path) -> None:
    muted_words = "I would like to book a table for two"
    muted = write_wav(tmp_path / "muted.wav", join(silence(200), espeak(muted_words), silence(300)))
    wav = caller_wav(tmp_path, HELLO)
    app = audio_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.host is not None, "models and the call", AUDIO_WAIT_S)
        core = host_of(app).core
        await wait_until(
            pilot, lambda: core.state is CallState.LISTENING, "the greeting", AUDIO_WAIT_S
        )
        await pilot.press("f3")
        assert app.status.info.meter == "mic: muted"
        await asyncio.to_thread(pulse.play_into_mic, muted)  # ends in 300 ms of silence
        await pilot.press("f3")
        await asyncio.to_thread(pulse.play_into_mic, wav)
        # The microphone's blocks reach the listener in order, and its turns reach the call
        # in order: anything of the muted words would be there before these.
        await wait_until(
            pilot,
            lambda: len(words(" ".join(core.ledger.caller_lines))) >= 4,
            "the words said after unmuting",
            AUDIO_WAIT_S,
        )
        assert word_errors(HELLO, " ".join(core.ledger.caller_lines)) <= 2, core.ledger.caller_lines
        await say(pilot, "hello")  # typing still works beside a live microphone
        await wait_until(pilot, lambda: core.ledger.caller_lines[-1] == "hello", "the typed turn")


@pytest.mark.slow  # its kind in CI: the caller-WAV run in tmux below
@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_sandbox_run_with_a_microphone_in_a_terminal(pulse: ModuleType, tmp_path: Path) -> None:
    wav = caller_wav(tmp_path, HELLO)
    report = tmp_path / "report.json"
    env = {"VOQALIZE_SANDBOX_HOME": str(tmp_path / "home"), **pulse.env()}
    with sandbox_run(["--idle-ms", "0", "--report", str(report)], env) as term:
        screen = term.wait_for(lambda s: "greeting · played" in s, "the greeting", AUDIO_WAIT_S)
        assert "Typed mode" not in screen and "mic " in screen
        pulse.play_into_mic(wav)
        screen = term.wait_for(
            lambda s: "bot · unit 2 · turn 2 · played" in s, "the spoken answer", AUDIO_WAIT_S
        )
        said = screen.split("you said · turn 2", 1)[1].splitlines()[1]
        assert word_errors(HELLO, said.split("│")[1]) <= 2, screen
        assert "Hello again!" in screen  # the concierge's answer, heard to its end
        assert "latency turn 2: end of speech ─" in screen
        term.keys("C-q")
        screen = term.wait_for(lambda s: "EXIT=" in s, "the app to exit")
        assert "EXIT=0" in screen and "Traceback" not in screen
    data = json.loads(report.read_text())
    assert data["ended_by"] == "caller"
    assert word_errors(HELLO, data["caller_turns"][0]) <= 2
    answer = data["units"][1]
    assert answer["fate"] == "played" and words(answer["heard"])[:2] == ["hello", "again"]


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_sandbox_run_mic_caller_wav_speaks_after_the_greeting_and_ends_with_the_file(
    pulse: ModuleType, tmp_path: Path
) -> None:
    """The README's ``sandbox run --mic caller.wav``: the file waits for the greeting to play
    out whole, and once it has been heard out and answered the call ends by itself."""
    (command,) = [c for c in commands("Sound on a headless machine") if "--mic" in c]
    wav = caller_wav(tmp_path, HELLO)
    args = [str(wav) if word == "caller.wav" else word for word in command[2:]]
    report = tmp_path / "report.json"
    env = {"VOQALIZE_SANDBOX_HOME": str(tmp_path / "home"), **pulse.env()}
    with sandbox_run([*args, "--report", str(report)], env) as term:
        screen = term.wait_for(lambda s: "Call ended" in s, "the call to end", 2 * AUDIO_WAIT_S)
        flat = " ".join(screen.split())
        assert f"Audio: microphone: the file {wav}, speaker " in flat
        assert "■ Call ended: the caller's audio file ended." in flat and "idle ·" not in flat
        term.keys("C-q")
        screen = term.wait_for(lambda s: "EXIT=" in s, "the app to exit")
        assert "EXIT=0" in screen and "Traceback" not in screen
    data = json.loads(report.read_text())
    greeting, answer = data["units"][:2]
    assert greeting["fate"] == "played" and greeting["heard"] == greeting["generated"]
    assert data["caller_turns"] and word_errors(HELLO, data["caller_turns"][0]) <= 2
    assert answer["fate"] == "played" and answer["heard"] == answer["generated"]
    assert data["ended_by"] == "caller"
