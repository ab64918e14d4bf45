"""``sandbox run`` as a user meets it: its options, its errors in words, and the app in a
real terminal (tmux), typed mode, talking to the built-in brain until ctrl+q."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from sandbox.cli import main
from sandbox.ui.audio import AudioRequest
from sandbox.ui.typed_audio import NO_ENGINE, choose_audio

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--ms-per-word", "0"], "--ms-per-word must be a positive number of milliseconds"),
        (["--voice", "nobody"], "unknown voice 'nobody'"),
        (["--patience", "11"], "--patience: stt.patience must be between 0 and 10 (got 11)"),
        (["--init", "[1]"], "--init must be a JSON object"),
    ],
)
def test_bad_options_are_words_not_tracebacks(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", *argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith("sandbox run: ") and words in err and "Traceback" not in err


def test_this_build_runs_typed_and_says_what_the_device_options_will_do() -> None:
    audio = choose_audio(AudioRequest(mic="usb", aec=False), 200)
    assert not audio.real
    assert NO_ENGINE in audio.banner and "200 ms a word" in audio.banner
    assert "--mic, --speaker and --no-aec take effect once it is." in audio.banner


#: A tmux server of the test's own, so the user's sessions and options play no part.
_SOCKET = f"sandbox-test-{os.getpid()}"


def _tmux(*args: str) -> str:
    done = subprocess.run(
        ["tmux", "-L", _SOCKET, *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def _wait_for_screen(session: str, ready: Callable[[str], bool], what: str) -> str:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        screen = _tmux("capture-pane", "-p", "-t", session)
        if ready(screen):
            return screen
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}; the screen was:\n{screen}")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_sandbox_run_in_a_terminal(tmp_path: Path) -> None:
    session = f"sandbox-run-{os.getpid()}"
    report = tmp_path / "report.json"
    command = " ".join(
        [
            f"{shlex.quote(sys.executable)} -m sandbox.cli run --ms-per-word 30 --idle-ms 0",
            f"--report {shlex.quote(str(report))}; echo EXIT=$?; sleep 60",
        ]
    )
    # COLUMNS and LINES as the window is: an inherited 80x24 would shrink the app.
    home = shlex.quote(str(tmp_path / "home"))
    env = f"VOQALIZE_SANDBOX_HOME={home} COLUMNS=160 LINES=45"
    _tmux(
        "new-session", "-d", "-s", session, "-x", "160", "-y", "45", "-c", str(REPO),
        f"env {env} {command}",
    )  # fmt: skip
    try:
        screen = _wait_for_screen(session, lambda s: "greeting · played" in s, "the greeting")
        assert "Typed mode, no sound" in screen and "the built-in concierge" in screen
        _tmux("send-keys", "-t", session, "what are your opening hours", "Enter")
        screen = _wait_for_screen(
            session, lambda s: "bot · unit 2 · turn 2 · played" in s, "the answer"
        )
        assert "you typed · turn 2" in screen and "show_section" in screen
        _tmux("send-keys", "-t", session, "C-q")
        screen = _wait_for_screen(session, lambda s: "EXIT=" in s, "the app to exit")
        assert "EXIT=0" in screen and "Traceback" not in screen
        assert f"report: {report}" in screen.replace("\n", "")
    finally:
        subprocess.run(["tmux", "-L", _SOCKET, "kill-server"], check=False)
    data = json.loads(report.read_text())
    assert data["ended_by"] == "caller"
    assert data["caller_turns"] == ["what are your opening hours"]
    assert [u["fate"] for u in data["units"]][:2] == ["played", "played"]
