"""``sandbox sessions script ID --expect`` through the real CLI: a call recorded over the real
WebSocket becomes a caller script with an expectation per turn, which ``sandbox test`` passes
against the brain that made the call and fails, naming the turn, against one that changed;
and the pure rules it draws them by (the margin, the phrases)."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest
from brain_process import serving
from cli_rig import sandbox_cli
from ui_tmux import sandbox_run

from sandbox.caller.script_limits import MAX_PHRASE_CHARS, REPLY_WITHIN_MS
from sandbox.paths import HOME_ENV
from sandbox.replay.heard_expects import REPLY_MARGIN_MS, phrases, reply_allowance

#: The call as recorded: three lines, the last one cut by a barge-in, and an idle nudge.
CALL = """ms_per_word = 30
[[step]]
say = "What are your opening hours?"
[[step]]
say = "My name is Ada."
[[step]]
silence_ms = 9000
[[step]]
say = "Tell me a long story please now"
[[step]]
barge_in = "Stop"
after_words = 2
[[step]]
end = true
"""
#: The echo brain changed in one answer: the one to the caller's name.
CHANGED = """
from sandbox.brains.echo import Echo
from sandbox.sdk import SpeechChunk, SpeechEnd, SpeechStart

class Changed(Echo):
    async def on_user_message(self, session, msg):
        if "Ada" not in msg.text:
            async for speech in super().on_user_message(session, msg):
                yield speech
            return
        yield SpeechStart()
        yield SpeechChunk("Noted.")
        yield SpeechEnd()
"""


def _recorded(home: Path, folder: Path) -> str:
    """A call to the echo brain, played from :data:`CALL`: its session id."""
    script = folder / "call.toml"
    script.write_text(CALL)
    report = folder / "report.json"
    called = sandbox_cli(home, "call", "--script", str(script), "--brain", "echo",
                         "--report", str(report))  # fmt: skip
    assert called.returncode == 0, called.stdout + called.stderr
    session_id: str = json.loads(report.read_text())["session_id"]
    return session_id


def test_a_recorded_call_becomes_a_test_that_fails_when_the_brain_changes(
    home: Path, tmp_path: Path
) -> None:
    session = _recorded(home, tmp_path)
    written = sandbox_cli(home, "sessions", "script", session[:8], "--expect")
    assert written.returncode == 0, written.stderr
    steps = tomllib.loads(written.stdout)["step"]
    expects = {step.get("say") or step.get("barge_in") or "silence": step.get("expect")
               for step in steps}  # fmt: skip
    assert expects["What are your opening hours?"]["heard_contains"] == [
        "You said: What are your opening hours?"
    ]
    assert expects["My name is Ada."]["heard_contains"] == ["You said: My name is Ada."]
    assert expects["Tell me a long story please now"]["heard_contains"] == ["You said:"]  # cut
    assert expects["Stop"]["heard_contains"] == ["You said: Stop"]
    assert len(expects["silence"]["heard_contains"]) >= 1  # the nudge, as it was heard
    for table in expects.values():
        assert table["no_errors"] is True
        assert REPLY_MARGIN_MS <= table["reply_within_ms"] <= REPLY_WITHIN_MS.high

    test = tmp_path / "test_regression.toml"
    test.write_text(written.stdout)
    same = sandbox_cli(home, "test", str(test), "--brain", "echo")
    assert same.returncode == 0, same.stdout + same.stderr
    (tmp_path / "changed.py").write_text(CHANGED)
    with serving(tmp_path, home, "changed:Changed") as (url, _):
        changed = sandbox_cli(home, "test", str(test), "--brain", url)
    assert changed.returncode == 1, changed.stdout + changed.stderr
    failures = [line.strip() for line in changed.stdout.splitlines() if "expected" in line]
    assert failures == [
        "step 2 (say): expected heard_contains 'You said: My name is Ada.'; heard 'Noted.'"
    ]


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_a_call_typed_in_the_app_becomes_a_test_that_passes(home: Path, tmp_path: Path) -> None:
    args = ["--typed", "--ms-per-word", "30", "--idle-ms", "0", "--brain", "echo"]
    with sandbox_run(args, {HOME_ENV: str(home)}) as term:
        term.wait_for(lambda s: "greeting · played" in s, "the greeting")
        term.keys("My name is Ada.", "Enter")
        term.wait_for(lambda s: "bot · unit 2 · turn 2 · played" in s, "the answer")
        term.keys("C-q")
        assert "EXIT=0" in term.wait_for(lambda s: "EXIT=" in s, "the app to exit")
    listed = sandbox_cli(home, "sessions", "list", "--json")
    (session,) = (json.loads(line)["id"] for line in listed.stdout.splitlines())
    written = sandbox_cli(home, "sessions", "script", session, "--expect")
    assert written.returncode == 0, written.stderr
    (step,) = tomllib.loads(written.stdout)["step"]
    assert step["type"] == "My name is Ada."
    assert step["expect"]["heard_contains"] == ["You said: My name is Ada."]
    assert step["expect"]["no_errors"] is True and step["expect"]["reply_within_ms"] > 0
    test = tmp_path / "test_typed.toml"
    test.write_text(written.stdout)
    passed = sandbox_cli(home, "test", str(test), "--brain", "echo")
    assert passed.returncode == 0, passed.stdout + passed.stderr


def test_a_call_with_no_caller_turn_has_nothing_to_script(home: Path, tmp_path: Path) -> None:
    script = tmp_path / "call.toml"
    script.write_text("[[step]]\nend = true\n")
    report = tmp_path / "report.json"
    called = sandbox_cli(home, "call", "--script", str(script), "--brain", "echo",
                         "--report", str(report))  # fmt: skip
    assert called.returncode == 0, called.stderr
    session = json.loads(report.read_text())["session_id"]
    written = sandbox_cli(home, "sessions", "script", session, "--expect")
    assert written.returncode == 1 and "has no caller side to script" in written.stderr
    assert "Traceback" not in written.stderr


def test_the_margin_is_half_again_and_at_least_the_least_rounded_up() -> None:
    assert reply_allowance(0) == REPLY_MARGIN_MS
    assert reply_allowance(120) == 700  # 120 + 500, up to a tenth of a second
    assert reply_allowance(2000) == 3000  # half again, over the least margin
    assert reply_allowance(2001) == 3100
    assert reply_allowance(REPLY_WITHIN_MS.high) == REPLY_WITHIN_MS.high


def test_what_was_heard_becomes_its_sentences_as_phrases() -> None:
    assert phrases("Hi there. How can I help? ") == ["Hi there.", "How can I help?"]
    assert phrases("") == [] and phrases(" ... ") == []
    long = phrases("word " * 400)
    assert len(long) == 1 and len(long[0]) <= MAX_PHRASE_CHARS and long[0].endswith("word")
