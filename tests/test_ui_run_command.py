"""``sandbox run`` as a user meets it: its options, its errors in words, and the app in a
real terminal (tmux), typed mode, talking to the built-in brain until ctrl+q."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from ui_tmux import sandbox_run

from sandbox.audio.devices import list_devices
from sandbox.cli import main
from sandbox.errors import UserError


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


def test_a_microphone_that_is_not_there_is_named_before_the_app_opens(
    capsys: pytest.CaptureFixture[str],
) -> None:
    try:
        mics = [d for d in list_devices() if d.inputs > 0]
    except UserError:
        mics = []
    if not mics:
        pytest.skip("no microphone here: the app would run typed rather than fail")
    assert main(["run", "--mic", "no such microphone"]) == 1
    assert "no input device matches 'no such microphone'" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_sandbox_run_in_a_terminal(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    args = ["--typed", "--ms-per-word", "30", "--idle-ms", "0", "--report", str(report)]
    with sandbox_run(args, {"VOQALIZE_SANDBOX_HOME": str(tmp_path / "home")}) as term:
        screen = term.wait_for(lambda s: "greeting · played" in s, "the greeting")
        assert "Typed mode, no sound: you asked for typed mode" in screen
        assert "the built-in concierge" in screen
        term.keys("what are your opening hours", "Enter")
        screen = term.wait_for(lambda s: "bot · unit 2 · turn 2 · played" in s, "the answer")
        assert "you typed · turn 2" in screen and "show_section" in screen
        term.keys("C-q")
        screen = term.wait_for(lambda s: "EXIT=" in s, "the app to exit")
        assert "EXIT=0" in screen and "Traceback" not in screen
        assert f"report: {report}" in screen.replace("\n", "")
    data = json.loads(report.read_text())
    assert data["ended_by"] == "caller"
    assert data["caller_turns"] == ["what are your opening hours"]
    assert [u["fate"] for u in data["units"]][:2] == ["played", "played"]
