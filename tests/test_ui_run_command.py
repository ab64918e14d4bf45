"""``sandbox run`` as a user meets it: its options, its errors in words, and the app in a
real terminal (tmux), typed mode, talking to the built-in brain until ctrl+q."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pytest
from ui_tmux import sandbox_run

from sandbox.audio.devices import list_devices
from sandbox.caller.script import DEFAULT_MS_PER_WORD
from sandbox.cli import main
from sandbox.errors import UserError


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--ms-per-word", "0"], "--ms-per-word: must be a whole number of ms from 1 to"),
        (["--ms-per-word", str(2**63 - 1)], "to 10,000 (got 9,223,372,036,854,775,807)"),
        (["--idle-ms", str(2**63)], "--idle-ms: must be a whole number of ms from 0 to"),
        (["--idle-ms", "5"], "--idle-ms: idle.timeout_ms must be 0 (off) or at least"),
        (["--voice", "nobody"], "unknown voice 'nobody'"),
        (["--patience", "11"], "--patience: stt.patience must be between 0 and 10 (got 11)"),
        (["--init", "[1]"], "--init: the init data must be a JSON object"),
        (["--mic", "x.wav", "--mic-delay", "-1"], "--mic-delay: must be a whole number of ms"),
    ],
)
def test_bad_values_are_refused_where_they_are_parsed(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["run", *argv])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith("sandbox run: error: argument ")
    assert words in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--mic-delay", "500"], "--mic-delay goes with --mic FILE.wav"),
        (["--typed", "--mic", "x.wav", "--no-end-at-eof"], "--end-at-eof goes with --mic FILE"),
        (["--mic", "no-such-file.wav"], "cannot read no-such-file.wav as a WAV microphone"),
    ],
)
def test_options_that_do_not_go_together_are_words_not_tracebacks(
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


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_without_colour_the_cut_stands_in_the_text(tmp_path: Path) -> None:
    """NO_COLOR: bold, dim and strike may all be lost, so a ✂ marks where the cut fell."""
    args = ["--typed", "--ms-per-word", "150", "--idle-ms", "0"]
    env = {"VOQALIZE_SANDBOX_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    with sandbox_run(args, env) as term:
        term.wait_for(lambda s: "greeting · played" in s, "the greeting")
        term.keys("what are your prices", "Enter")
        term.wait_for(lambda s: "bot · unit 2 · turn 2 · speaking" in s, "the answer")
        term.keys("F2")
        screen = term.wait_for(lambda s: "words heard" in s, "the cut")
        # The conversation pane's column, its wrapped lines joined back into the unit's text.
        column = [line.split("│")[1].strip() if "│" in line else "" for line in screen.splitlines()]
        at = next(i for i, line in enumerate(column) if "cut by a barge-in" in line)
        heard = int(column[at].split("✂ ", 1)[1].split(" of ", 1)[0])
        before, after = " ".join(itertools.takewhile(bool, column[at + 1 :])).split(" ✂ ")
        assert len(before.split()) == heard and after, screen
        term.keys("C-q")
        assert "EXIT=0" in term.wait_for(lambda s: "EXIT=" in s, "the app to exit")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
@pytest.mark.parametrize(
    ("argv", "rate"), [([], DEFAULT_MS_PER_WORD), (["--ms-per-word", "120"], 120)]
)
def test_typed_mode_shows_its_speaking_rate_and_the_option_that_sets_it(
    tmp_path: Path, argv: list[str], rate: int
) -> None:
    env = {"VOQALIZE_SANDBOX_HOME": str(tmp_path / "home")}
    with sandbox_run(["--typed", "--idle-ms", "0", *argv], env) as term:
        screen = term.wait_for(lambda s: "greeting" in s, "the first screen")
        words = " ".join(screen.split())  # however the banner wrapped
        assert f"at {rate} ms a word (sandbox run --ms-per-word MS changes it)" in words
        term.keys("C-q")
        assert "EXIT=0" in term.wait_for(lambda s: "EXIT=" in s, "the app to exit")
