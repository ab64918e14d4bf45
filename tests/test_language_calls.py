"""001's Config rules for languages, each through ``sandbox call`` with real audio (a
scripted caller spoken by espeak-ng, Whisper, Piper) and a brain written against the raw
wire, which sends what the SDK would refuse to build; and a call heard in German while
spoken in English, and one heard by a recognizer written here."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import ClassVar

import pytest
from brain_process import reported_call, sandbox_command, sandbox_env
from fixtures_bad_brains import WireBrain, served_in_thread

from sandbox.audio import multilingual_model
from sandbox.wire import pb

pytestmark = [
    pytest.mark.audio,
    pytest.mark.skipif(
        not multilingual_model.installed(), reason="the languages extra is not installed"
    ),
]

REAL = ("--audio", "real", "--speaker", "none", "--idle-ms", "0")
THREE_LINES = """\
[[step]]
say = "What are your opening hours?"
[[step]]
say = "And on Sunday?"
[[step]]
say = "Thank you, goodbye."
"""


def _config(
    tts: pb.Language | None = None, stt: pb.Language | None = None, patience: int | None = None
) -> pb.Config:
    config = pb.Config()
    if tts is not None:
        config.tts.language = tts
    if stt is not None:
        config.stt.language = stt
    if patience is not None:
        config.stt.patience = patience
    return config


class ConfiguresLanguages(WireBrain):
    """Sends its n-th Config as a Request on the caller's n-th line, then answers it; keeps
    the Responses (the test reads them from this process)."""

    configs: ClassVar[list[pb.Config]] = []
    responses: ClassVar[list[pb.Response]] = []
    asked: ClassVar[list[int]] = []

    async def on_message(self, turn: int, text: str) -> None:
        asked = len(self.asked) + 1
        if asked <= len(self.configs):
            self.asked.append(asked)
            await self.send(pb.Request(request_id=asked, configure=self.configs[asked - 1]))
        await self.say(turn, "Noted.")

    def on_response(self, response: pb.Response) -> None:
        self.responses.append(response)


def _served(configs: list[pb.Config]) -> type[ConfiguresLanguages]:
    class Brain(ConfiguresLanguages):
        pass

    Brain.configs, Brain.responses, Brain.asked = configs, [], []
    return Brain


def test_each_language_rule_of_001_holds_on_a_real_audio_call(tmp_path: Path) -> None:
    """Half a language is refused; a language the recognizer cannot hear is refused whole,
    naming what it hears (the patience beside it not applied); both legs named, different
    ones, are accepted and the recognizer moves (English spoken, German heard)."""
    brain = _served(
        [
            _config(stt=pb.LANGUAGE_DE),
            _config(tts=pb.LANGUAGE_EN, stt=pb.LANGUAGE_OR, patience=2),
            _config(tts=pb.LANGUAGE_EN, stt=pb.LANGUAGE_DE),
        ]
    )
    with served_in_thread(brain) as url:
        done, report = reported_call(
            tmp_path, tmp_path / "home", THREE_LINES, "--brain", url, *REAL
        )
    assert done.returncode == 0, done.stderr
    half, unheard, both = sorted(brain.responses, key=lambda r: r.request_id)
    assert half.status == pb.STATUS_REJECTED
    assert "stt.language is set but tts.language is not" in half.detail
    assert unheard.status == pb.STATUS_REJECTED
    assert unheard.detail.startswith("the recognizer cannot transcribe or; it serves: ")
    assert all(code in unheard.detail.split("serves: ")[1] for code in ("de", "en", "hi", "ta"))
    assert both.status == pb.STATUS_ACCEPTED, both.detail
    # Rejected whole: the patience beside the refused language never applied.
    assert "speak en · hear de · patience 7" in report["settings"]
    assert "Loading speech recognizer (Whisper base (multilingual))" in done.stderr


@pytest.mark.slow  # its kind in CI: the rules' call, which moves to German mid-call
def test_a_call_heard_in_german_is_spoken_by_the_english_voice(tmp_path: Path) -> None:
    """001: the legs may differ. The default voice speaks English; the recognizer hears the
    caller in German from the first line."""
    script = '[[step]]\nsay = "Hallo"\n'
    done, report = reported_call(
        tmp_path, tmp_path / "home", script, "--hear-language", "de", *REAL
    )
    assert done.returncode == 0, done.stderr
    assert "voice joe · speak en · hear de" in report["settings"]
    assert "Whisper base (multilingual)" in done.stderr


PARROT = '''\
"""A recognizer of the test's own, on --stt-model."""

import numpy as np

from sandbox.audio.stt import Transcript


class Parrot:
    name = "parrot"
    languages = frozenset({"en"})

    def transcribe(self, pcm16k, *, language="en", word_timestamps=False, brief=False):
        loud = bool(np.abs(pcm16k).max(initial=0.0) > 0.05)
        return Transcript("a recognizer of my own" if loud and not brief else "")
'''


def test_a_recognizer_written_here_hears_the_call(tmp_path: Path) -> None:
    (tmp_path / "parrot.py").write_text(PARROT)
    script = tmp_path / "call.toml"
    script.write_text('[[step]]\nsay = "What are your opening hours?"\n')
    report = tmp_path / "report.json"
    env = {**sandbox_env(tmp_path / "home"), "PYTHONPATH": _with_path(tmp_path)}
    args = (
        "call",
        "--script",
        str(script),
        "--report",
        str(report),
        "--stt-model",
        "parrot:Parrot",
    )
    done = subprocess.run(
        sandbox_command(*args, *REAL), capture_output=True, text=True, env=env, timeout=180
    )
    assert done.returncode == 0, done.stderr
    assert "Loading speech recognizer (parrot:Parrot)" in done.stderr
    told = json.loads(report.read_text())["caller_turns"]
    assert "a recognizer of my own" in told, told

    missing = subprocess.run(
        sandbox_command("call", "--script", str(script), "--stt-model", "parrot:Nobody", *REAL),
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )
    assert missing.returncode == 1
    assert missing.stderr.strip().splitlines()[-1] == (
        "sandbox call: --stt-model 'parrot:Nobody' does not import: AttributeError: module "
        "'parrot' has no attribute 'Nobody'"
    )


def _with_path(folder: Path) -> str:
    return os.pathsep.join([str(folder), *filter(None, [os.environ.get("PYTHONPATH")])])


def test_a_scripts_language_starts_the_call_in_it_unless_the_command_line_names_one(
    tmp_path: Path,
) -> None:
    """Simulated: the script's caller speaks German, so the call is heard and spoken in it,
    by a voice that speaks it; --hear-language on the command line wins over the script."""
    script = 'language = "de"\n[[step]]\nsay = "Guten Tag"\n'
    done, report = reported_call(tmp_path, tmp_path / "home", script, "--audio", "sim")
    assert done.returncode == 0, done.stderr
    assert "voice espeak_male · speak de · hear de" in report["settings"]
    (tmp_path / "again").mkdir()
    done, report = reported_call(
        tmp_path / "again", tmp_path / "home", script, "--audio", "sim", "--hear-language", "hi"
    )
    assert done.returncode == 0, done.stderr
    assert "voice joe · speak en · hear hi" in report["settings"]


@pytest.mark.slow  # its kind in CI: tests/test_language_audio_calls.py's Hindi call
def test_a_scripted_caller_speaks_hindi_into_a_call_heard_in_hindi(tmp_path: Path) -> None:
    """The script's language is the caller's: espeak-ng speaks its lines in Hindi, which
    Whisper base hears in Hindi (in whichever script it writes it)."""
    script = 'language = "hi"\n[[step]]\nsay = "नमस्ते मुझे एक क्लास बुक करनी है"\n'
    done, report = reported_call(tmp_path, tmp_path / "home", script, *REAL)
    assert done.returncode == 0, done.stderr
    assert "speak hi · hear hi" in report["settings"]
    (told,) = report["caller_turns"]
    assert told.strip() and "Whisper base (multilingual)" in done.stderr
    assert {(u["voice"], u["language"]) for u in report["units"]} == {
        ("VOICE_ESPEAK_MALE", "LANGUAGE_HI")
    }


SPY = '''\
"""The call's own recognizers, noting each clip's language, time and text in a file."""

import json
import os
import time

from sandbox.audio.recognizers import Recognizers
from sandbox.audio.stt import Transcriber


class Spy:
    name = "spy"
    languages = frozenset({"en", "de"})

    def __init__(self):
        self._heard = Recognizers(Transcriber.load())
        self._log = os.environ["SPY_LOG"]

    def transcribe(self, pcm16k, *, language="en", word_timestamps=False, brief=False):
        said = self._heard.transcribe(
            pcm16k, language=language, word_timestamps=word_timestamps, brief=brief
        )
        if not brief:
            with open(self._log, "a") as log:
                note = {"language": language, "t": time.monotonic(), "text": said.text}
                log.write(json.dumps(note) + "\\n")
        return said
'''


class MovesTheLegsMidCall(WireBrain):
    """Moves tts to German in the middle of streaming its first unit (the next unit speaks
    it), and stt to German the moment the caller cuts in (the open turn is heard as spoken);
    notes when each move was accepted (this process's monotonic clock, the machine's)."""

    accepted: ClassVar[dict[int, float]] = {}
    greeting = ""

    async def on_start(self) -> None:
        pass

    async def on_message(self, turn: int, text: str) -> None:
        if self.accepted:
            await self.say(turn, "Gut.")
            return
        sid = self.mint()
        await self.send(pb.SpeechStart(speech_id=sid, turn_id=turn))
        await self.send(pb.SpeechChunk(speech_id=sid, text="Sure, "))
        german = _config(tts=pb.LANGUAGE_DE, stt=pb.LANGUAGE_EN)
        german.tts.voice = pb.VOICE_ESPEAK_MALE
        await self.send(pb.Request(request_id=1, configure=german))
        await self.send(pb.SpeechChunk(speech_id=sid, text="one moment. "))
        await self.send(pb.SpeechEnd(speech_id=sid))
        await self.say(
            turn,
            "Unser Studio ist am Sonntag geschlossen und am Montag wieder offen, von sieben "
            "Uhr morgens bis neun Uhr abends.",
        )

    async def on_interruption(self, through_turn: int) -> None:
        if 2 not in self.accepted:
            both = _config(tts=pb.LANGUAGE_DE, stt=pb.LANGUAGE_DE)
            await self.send(pb.Request(request_id=2, configure=both))

    def on_response(self, response: pb.Response) -> None:
        assert response.status == pb.STATUS_ACCEPTED, response.detail
        self.accepted[response.request_id] = time.monotonic()


@pytest.mark.slow  # its kind in CI: the rules' call above
def test_tts_moves_from_the_next_unit_and_stt_once_the_open_turn_commits(tmp_path: Path) -> None:
    """001's timing of a Config: a unit streaming when tts moves keeps its voice, the next
    one speaks the new; a caller turn open when stt moves is transcribed as it was spoken
    (in English, after the move was accepted), and the turn after it in German."""
    (tmp_path / "spy.py").write_text(SPY)
    log = tmp_path / "heard.jsonl"
    script = (
        '[[step]]\nsay = "What are your opening hours?"\n'
        '[[step]]\nbarge_in = "Sorry, what about Sunday?"\nafter_words = 6\n'
        '[[step]]\nsay = "Thank you, goodbye."\n'
    )
    env = {**sandbox_env(tmp_path / "home"), "PYTHONPATH": _with_path(tmp_path)}
    MovesTheLegsMidCall.accepted = {}
    (tmp_path / "call.toml").write_text(script)
    with served_in_thread(MovesTheLegsMidCall) as url:
        done = subprocess.run(
            sandbox_command(
                *("call", "--script", str(tmp_path / "call.toml"), "--brain", url),
                *("--report", str(tmp_path / "report.json"), "--stt-model", "spy:Spy", *REAL),
            ),
            capture_output=True,
            text=True,
            env={**env, "SPY_LOG": str(log)},
            timeout=300,
        )
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    spoken = [(u["voice"], u["language"]) for u in report["units"] if u["turn_id"] == 2]
    assert spoken[:2] == [("VOICE_JOE", "LANGUAGE_EN"), ("VOICE_ESPEAK_MALE", "LANGUAGE_DE")]
    moved = MovesTheLegsMidCall.accepted[2]
    heard = [json.loads(line) for line in log.read_text().splitlines()]
    languages = [h["language"] for h in heard]
    assert languages == sorted(languages, key=["en", "de"].index), heard  # en, then de
    cut_in = [h for h in heard if "sunday" in h["text"].lower()]
    assert cut_in and all(h["language"] == "en" for h in cut_in), heard
    assert any(h["t"] > moved for h in cut_in), (moved, heard)  # open when stt moved
    assert languages[-1] == "de", heard
