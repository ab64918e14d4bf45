"""What a newcomer met in the app (issue 30), in a real terminal (tmux): the way back to a
call after ctrl+q, a caller's file on a machine with no sound device, and what ended a call
that no person hung up."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from caller_audio import espeak, join, silence, write_wav
from ui_tmux import sandbox_in_tmux, sandbox_run

from sandbox.paths import HOME_ENV

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
#: Models loading, the greeting and the caller's line in real time, Whisper.
AUDIO_WAIT_S = 120.0


def flat(screen: str) -> str:
    """The screen's words, however they wrapped."""
    return " ".join(screen.split())


def test_after_ctrl_q_the_terminal_says_how_to_watch_the_call_again(tmp_path: Path) -> None:
    args = ["--typed", "--ms-per-word", "30", "--idle-ms", "0"]
    with sandbox_run(args, {HOME_ENV: str(tmp_path / "home")}) as term:
        term.wait_for(lambda s: "greeting · played" in s, "the greeting")
        term.keys("C-q")
        screen = flat(term.wait_for(lambda s: "EXIT=" in s, "the app to exit"))
    assert "EXIT=0" in screen and "report: " in screen
    assert "watch it again: sandbox replay " in screen


def test_a_caller_file_plays_with_no_speaker_and_its_end_ends_the_call(tmp_path: Path) -> None:
    """No sound device at all: the file is the caller, the replies play silently, and the
    call ends with the file, said so rather than "you ended the call"."""
    wav = write_wav(
        tmp_path / "caller.wav", join(silence(200), espeak("what are your hours"), silence(300))
    )
    env = {HOME_ENV: str(tmp_path / "home"), "PULSE_SERVER": "unix:/nonexistent"}
    with sandbox_run(["--mic", str(wav), "--idle-ms", "0"], env) as term:
        screen = flat(term.wait_for(lambda s: "Call ended" in s, "the call to end", AUDIO_WAIT_S))
        assert "Typed mode" not in screen
        assert f"Audio: microphone: the file {wav}, speaker: none" in screen
        assert "No speaker found: the file plays all the same" in screen
        assert "■ Call ended: the caller's audio file ended." in screen
        term.keys("C-q")
        assert "EXIT=0" in term.wait_for(lambda s: "EXIT=" in s, "the app to exit")


@pytest.mark.slow  # CI plays demo scenes in the app in tests/test_demo.py
def test_a_demo_scene_ends_the_call_as_the_scene_ending(tmp_path: Path) -> None:
    args = ["demo", "--scene", "backchannel", "--silent"]
    with sandbox_in_tmux(args, {HOME_ENV: str(tmp_path / "home")}) as term:
        screen = flat(term.wait_for(lambda s: "Call ended" in s, "the scene's call to end", 60))
        assert "■ Call ended: the scene ended." in screen
        term.keys("C-q")
        term.wait_for(lambda s: "EXIT=" in s, "the app to exit")
