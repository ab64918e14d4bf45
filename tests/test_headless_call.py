"""`sandbox call` end to end: the real CLI, a real brain process, a real WebSocket."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from brain_process import reported_call
from readme import commands

from sandbox.paths import HOME_ENV


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, HOME_ENV: str(home)}


@pytest.fixture
def brain(request: pytest.FixtureRequest, home: Path) -> Iterator[str]:
    """`sandbox brain NAME` in its own process; yields the URL it serves."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sandbox.cli", "brain", request.param, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(home),
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.05)
    try:
        yield f"ws://127.0.0.1:{port}/brain"
    finally:
        proc.terminate()
        proc.wait(10)


def _sandbox(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``sandbox ARGS…`` against the test's data dir; never a traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "sandbox.cli", *args],
        capture_output=True,
        text=True,
        env=_env(home),
        timeout=60,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def _call(home: Path, tmp_path: Path, script: str, *extra: str) -> dict[str, Any]:
    done, report = reported_call(tmp_path, home, script, "--idle-ms", "0", *extra)
    assert done.returncode == 0, done.stdout + done.stderr
    return report


def _check_invariants(report: dict[str, Any]) -> None:
    out = [f for f in report["frames"] if f["dir"] == "out"]
    assert out[0]["type"] == "session_start" and out[0]["wire_version"] == 3
    opened = [f["speech_id"] for f in report["frames"] if f["type"] == "speech_start"]
    finalized = [f["speech_id"] for f in out if f["type"] == "finalize"]
    assert finalized == opened  # exactly one each, in the order they opened
    for unit in report["units"]:
        assert unit["generated"].startswith(unit["heard"])
        assert unit["interrupted"] == (unit["heard"] != unit["generated"])
    for frame in report["frames"]:
        assert {"t_ms", "dir", "type"} <= set(frame)


ECHO = """
ms_per_word = 30
[[step]]
say = "hello there"
[[step]]
type = "typed words"
"""


@pytest.mark.parametrize("brain", ["echo"], indirect=True)
def test_echo_brain(brain: str, home: Path, tmp_path: Path) -> None:
    report = _call(home, tmp_path, ECHO, "--brain", brain)
    _check_invariants(report)
    heard = [u["heard"] for u in report["units"]]
    assert heard[1:] == ["You said: hello there", "You said: typed words"]
    assert report["caller_turns"] == ["hello there", "typed words"]
    assert report["outcome"] == "completed" and report["ended_by"] == "caller"
    assert report["errors"] == []


CONCIERGE = """
ms_per_word = 30
[[step]]
say = "What are your opening hours?"
[[step]]
say = "How much does it cost?"
[[step]]
barge_in = "Sorry, do you have parking?"
after_words = 3
[[step]]
rtvi = { type = "ui-event", data = { event = "tap", target = "pricing" } }
"""


@pytest.mark.parametrize("brain", ["concierge"], indirect=True)
def test_concierge_brain_barge_in_heard_truth_and_steps(
    brain: str, home: Path, tmp_path: Path
) -> None:
    report = _call(home, tmp_path, CONCIERGE, "--brain", brain)
    _check_invariants(report)
    cut = [u for u in report["units"] if u["interrupted"]]
    assert len(cut) == 1 and cut[0]["words_heard"] == 3 and cut[0]["turn_id"] == 3
    assert [f["through_turn"] for f in report["frames"] if f["type"] == "interruption"] == [3]
    assert report["steps"], "the concierge reports TurnSteps"
    kinds = {s["kind"] for s in report["steps"]}
    assert {"model", "tool"} <= kinds
    to_brain = [f for f in report["frames"] if f["dir"] == "out" and f["type"] == "rtvi"]
    assert to_brain and to_brain[0]["rtvi_type"] == "RTVI_TYPE_UI_EVENT"
    ui_commands = [f for f in report["frames"] if f["dir"] == "in" and f["type"] == "rtvi"]
    assert ui_commands, "the tool hop dispatches a ui-command"


GUARD = """
ms_per_word = 30
[[step]]
say = "What is my card number?"
[[step]]
say = "And my balance?"
"""


@pytest.mark.parametrize("brain", ["guardrail"], indirect=True)
def test_guardrail_brain_cancels_its_own_unit_and_goes_on(
    brain: str, home: Path, tmp_path: Path
) -> None:
    report = _call(home, tmp_path, GUARD, "--brain", brain)
    _check_invariants(report)
    cancels = [f for f in report["frames"] if f["type"] == "speech_cancel"]
    assert len(cancels) == 1
    cancelled = next(u for u in report["units"] if u["speech_id"] == cancels[0]["speech_id"])
    assert cancelled["fate"] == "cancelled" and cancelled["interrupted"]
    after = [u for u in report["units"] if u["turn_id"] == cancelled["turn_id"]]
    assert after[-1]["fate"] == "played" and "can't read card details" in after[-1]["heard"]
    assert not [f for f in report["frames"] if f["type"] == "interruption"]
    assert report["errors"] == []


def test_builtin_brain_when_none_is_named(home: Path, tmp_path: Path) -> None:
    report = _call(home, tmp_path, ECHO.replace("typed words", "what are your hours"))
    _check_invariants(report)
    assert "Harbour Street" in report["units"][0]["heard"]  # the concierge's greeting


@pytest.mark.parametrize("brain", ["echo"], indirect=True)
def test_relay_leg(brain: str, home: Path, tmp_path: Path) -> None:
    relay = brain.replace("/brain", "/agent")
    report = _call(home, tmp_path, ECHO, "--brain", relay, "--relay")
    _check_invariants(report)
    assert report["units"][-1]["heard"] == "You said: typed words"


@pytest.mark.parametrize("brain", ["echo"], indirect=True)
def test_relay_dials_the_url_as_the_readme_says_ending_in_agent(
    brain: str, home: Path, tmp_path: Path
) -> None:
    (command,) = [c for c in commands("Decisions the seeds leave open") if "--relay" in c[2:]]
    readme_url = command[command.index("--brain") + 1]  # ws://127.0.0.1:8765/agent
    port = brain.rsplit(":", 1)[1].split("/")[0]
    report = _call(home, tmp_path, ECHO, "--brain", readme_url.replace("8765", port), "--relay")
    assert report["units"][-1]["heard"] == "You said: typed words"
    script = tmp_path / "relay.toml"
    script.write_text(ECHO)
    refused = _sandbox(home, "call", "--script", str(script), "--relay", "--brain", brain)
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "whose URL ends in /agent" in refused.stderr


def test_a_bad_script_is_a_clear_error(home: Path, tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[[step]]\nshout = 'x'\n")
    result = _sandbox(home, "call", "--script", str(path))
    assert result.returncode == 1 and "step 1" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_unreachable_brain_is_a_call_not_reached_with_its_reason(
    home: Path, tmp_path: Path
) -> None:
    path = tmp_path / "s.toml"
    path.write_text(ECHO)
    report_path = tmp_path / "r.json"
    nowhere = f"ws://127.0.0.1:{_free_port()}/brain"
    result = _sandbox(
        home, "call", "--script", str(path), "--brain", nowhere, "--report", str(report_path)
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "the call was never placed: could not reach the brain" in result.stdout
    report = json.loads(report_path.read_text())
    assert (report["outcome"], report["ended_by"]) == ("not_reached", "dial_failed")
    assert "could not reach the brain" in report["end_detail"]
    assert report["record"]["reason"].startswith("the dial failed: could not reach the brain")
    listed = _sandbox(home, "sessions", "list")
    assert "not_reached" in listed.stdout and "why: could not reach the brain" in listed.stdout


READ_BACKS = """
ms_per_word = 30
[[step]]
say = "My number is oh seven seven double four five six seven eight nine zero"
[[step]]
say = "Yes that's right"
[[step]]
say = "My email is john dot smith at example dot com"
[[step]]
barge_in = "Sorry, go on"
after_words = 2
"""


@pytest.mark.parametrize("brain", ["echo"], indirect=True)
def test_the_call_record_judges_read_backs_on_what_the_caller_heard(
    brain: str, home: Path, tmp_path: Path
) -> None:
    """The echo brain reads every line back. The number's read-back is heard whole and
    agreed; the email's is cut after "You said:" by the caller, so it was never heard."""
    report = _call(home, tmp_path, READ_BACKS, "--brain", brain)
    record = report["record"]
    statuses = {(r["kind"], r["value"]): r["status"] for r in record["readbacks"]}
    assert statuses == {
        ("phone", "07744567890"): "confirmed",
        ("email", "john.smith@example.com"): "not_heard",
    }
    cut = next(u for u in report["units"] if "example dot com" in u["generated"])
    assert "example" not in cut["heard"]  # the generated read-back the caller never heard
    assert record["outcome"] == "completed" and not record["below_floor"]
    shown = _sandbox(home, "sessions", "show", report["session_id"][:8])
    assert "phone 07744567890 (turn 2): read back and confirmed [confirmed]" in shown.stdout
    assert "[not_heard]" in shown.stdout


@pytest.mark.parametrize("brain", ["echo"], indirect=True)
def test_a_two_word_caller_is_not_a_conversation_and_is_not_summarised(
    brain: str, home: Path, tmp_path: Path
) -> None:
    report = _call(home, tmp_path, "[[step]]\nsay = 'hello there'\n", "--brain", brain)
    record = report["record"]
    assert report["outcome"] == record["outcome"] == "not_a_conversation"
    assert record["below_floor"] and record["summary"].startswith("skipped")
    md = _sandbox(home, "export", report["session_id"][:8], "--md", "-")
    assert "Not summarised: 1 caller line and 2 words: below the floor" in md.stdout
