"""Ctrl-C, ``kill`` and a closed terminal hang a ``sandbox call`` up as the caller would:
real signals sent to a real ``sandbox call`` process, the session read back from the store.
The transcript is printed as the call goes, each line once."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest
from brain_process import sandbox_command, sandbox_env

from sandbox.paths import HOME_ENV
from sandbox.record.store import SessionStore

#: Slow enough that the answer to the first line is still playing when the signal lands.
SCRIPT = """\
ms_per_word = 250
[[step]]
say = "What are your opening hours?"
[[step]]
say = "Tell me about your prices please"
"""
ASKED = "  caller  [turn 2] What are your opening hours?"
#: How the caller's first line starts, however Whisper heard its words.
ASKING = "  caller  [turn 2] "


def hang_up_mid_answer(
    tmp_path: Path, number: signal.Signals, *args: str
) -> tuple[list[str], str, int]:
    """Start the call, read its transcript as it comes up to the caller's first line, send
    ``number`` a moment into the answer; the lines before it, the rest, the exit status."""
    script = tmp_path / "call.toml"
    script.write_text(SCRIPT)
    proc = subprocess.Popen(
        sandbox_command("call", "--script", str(script), *args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=sandbox_env(tmp_path / "home"),
    )
    before: list[str] = []
    try:
        assert proc.stdout is not None
        while not any(line.startswith(ASKING) for line in before):  # printed as it goes
            line = proc.stdout.readline()
            assert line, f"the call ended before its first line: {before}{proc.stderr}"
            before.append(line.rstrip("\n"))
        time.sleep(1.0)  # a few words of the answer play
        proc.send_signal(number)
        rest, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "Traceback" not in err, err
    return before, rest, proc.returncode


def read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stdout: str) -> dict[str, object]:
    """The stored report of the session ``sandbox call`` printed, checked to be closed."""
    (line,) = [line for line in stdout.splitlines() if line.startswith("session ")]
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))
    with SessionStore() as store:
        row = store.find(line.split()[1])
        report = store.report(row.id)
    assert row.status != "unfinished" and row.ended_by == "caller"
    assert report is not None
    return report


@pytest.mark.parametrize(
    ("number", "words"),
    [
        (signal.SIGINT, "hung up on SIGINT (Ctrl-C)"),
        (signal.SIGTERM, "hung up on SIGTERM"),
        (signal.SIGHUP, "hung up on SIGHUP"),
    ],
)
def test_a_signal_hangs_the_call_up_as_the_caller_and_prints_what_was_heard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, number: signal.Signals, words: str
) -> None:
    before, rest, status = hang_up_mid_answer(tmp_path, number)
    assert status == 128 + number
    assert before[0].startswith("  bot     [unit 1, turn 1] 'Hi, thanks for calling")
    assert f"  {words}" in rest and "report: " in rest, rest
    printed = before + rest.splitlines()
    answer = [line for line in printed if line.startswith("  bot     [unit 2, turn 2]")]
    assert len(answer) == 1, printed  # the answer cut by the hang-up, once
    assert printed.count(before[0]) == 1 and printed.count(ASKED) == 1  # never twice
    report = read_back(tmp_path, monkeypatch, rest)
    units = report["units"]
    assert isinstance(units, list) and len(units) == 2
    assert all(unit["fate"] != "in play" for unit in units)  # every unit Finalized
    heard = units[1]["heard"]
    assert heard and heard in answer[0]  # what the caller heard of it, as printed
    frames = report["frames"]
    assert isinstance(frames, list)
    finalized = [f["speech_id"] for f in frames if f["type"] == "finalize"]
    assert finalized == [unit["speech_id"] for unit in units]
    assert [f["type"] for f in frames if f["dir"] == "out"][-1] == "end"  # End sent


@pytest.mark.slow  # the hang-up on a signal runs by default in sim (all three signals)
def test_ctrl_c_hangs_up_a_real_audio_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, rest, status = hang_up_mid_answer(
        tmp_path, signal.SIGINT, "--audio", "real", "--speaker", "none"
    )
    assert status == 130
    assert "  hung up on SIGINT (Ctrl-C)" in rest, rest
    report = read_back(tmp_path, monkeypatch, rest)
    units = report["units"]
    assert isinstance(units, list) and len(units) >= 2
    assert all(unit["fate"] != "in play" for unit in units)
