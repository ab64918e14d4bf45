"""The one rule set for outside text, end to end: an author's brain, served from its file,
says noncharacters (U+FFFF, U+FFFE, U+FDD0, U+10FFFF), tag characters, a bidi override and
an 8-bit CSI; the caller's script says them too. Every printer shows them spelt out, the
JUnit file a CI reads parses, and the JSON and TOML files hold them escaped, as the same text.
"""

from __future__ import annotations

import json
import subprocess
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from brain_process import run, serving

from sandbox.record.plain_text import CONTROL

#: What the brain says, raw: noncharacters, tag characters (an invisible "hi"), a bidi
#: override and an 8-bit CSI (TOML and Python spell them the same).
SAYS = r"A\uffffB\ufffeC\U000e0068\U000e0069D\U0010ffffE\ufdd0F\u202eG\u009bH"
#: The same, as every printer shows it.
SHOWN = r"A\uffffB\ufffeC\U000e0068\U000e0069D\U0010ffffE\ufdd0F\u202eG\x9bH"
BRAIN = f"""
from sandbox.sdk import Brain, SpeechChunk, SpeechEnd, SpeechStart

class Says(Brain):
    async def greet(self, session):
        return "Hi {SAYS}"

    async def on_user_message(self, session, msg):
        yield SpeechStart()
        yield SpeechChunk("You said " + msg.text + " {SAYS}")
        yield SpeechEnd()
"""
#: The caller says them too (and ESC), and expects what it will not hear: the test fails.
CALLER = r"hello \u202e\u009b\uffff\U000e0041\u001b[2J"
SCRIPT = f'ms_per_word = 5\n[[step]]\nsay = "{CALLER}"\nexpect = {{ heard_contains = "zebra" }}\n'


def raw(text: str) -> set[str]:
    """The ruled characters ``text`` holds raw, but its own line feeds."""
    return set(CONTROL.findall(text)) - {"\n"}


def said(escaped: str) -> str:
    """What an escaped text is, read as TOML reads it."""
    text: str = tomllib.loads(f'x = "{escaped}"')["x"]
    return text


@dataclass(frozen=True)
class Calls:
    """The folder and home of a `sandbox test` and a `sandbox call` against the brain, and
    what each printed."""

    folder: Path
    home: Path
    tested: subprocess.CompletedProcess[str]
    called: subprocess.CompletedProcess[str]

    def cli(self, *args: str) -> str:
        """``sandbox ARGS`` in the same home: what it printed (it must succeed)."""
        done = run(self.folder, self.home, *args)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        return done.stdout


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Calls]:
    folder, home = tmp_path_factory.mktemp("brain"), tmp_path_factory.mktemp("home")
    (folder / "says.py").write_text(BRAIN)
    (folder / "test_says.toml").write_text(SCRIPT)
    with serving(folder, home, "says.py") as (url, _proc):
        tested = run(
            folder, home, "test", "test_says.toml", "--brain", url,
            "--junit", "junit.xml", "--json", "results.json",
        )  # fmt: skip
        called = run(
            folder, home, "call", "--script", "test_says.toml", "--brain", url,
            "--report", "report.json",
        )  # fmt: skip
    for done in (tested, called):
        assert "Traceback" not in done.stderr, done.stderr
    assert tested.returncode == 1 and called.returncode == 0, tested.stdout + called.stdout
    yield Calls(folder, home, tested, called)


def test_the_junit_file_parses_with_the_brains_words_spelt_out(calls: Calls) -> None:
    junit = (calls.folder / "junit.xml").read_text("utf-8")
    assert not raw(junit)
    suite = ET.fromstring(junit.encode()).find("testsuite")
    assert suite is not None and suite.get("failures") == "1"
    failure = suite.find("testcase/failure")
    assert failure is not None and SHOWN in (failure.get("message") or "")
    assert (failure.text or "").splitlines()[0] == failure.get("message")


def test_sandbox_test_prints_them_spelt_out_and_its_json_keeps_them_whole(calls: Calls) -> None:
    assert not raw(calls.tested.stdout) and SHOWN in calls.tested.stdout
    text = (calls.folder / "results.json").read_text("utf-8")
    assert not raw(text)
    (answer,) = json.loads(text)["scripts"][0]["runs"][0]["answers"]
    assert said(SAYS) in answer["heard"]  # the data, whole


def test_sandbox_call_prints_them_spelt_out(calls: Calls) -> None:
    out = calls.called.stdout
    assert not raw(out)
    assert f"'Hi {SHOWN}'" in out  # the brain's greeting
    assert r"[turn 2] hello \u202e\x9b\uffff\U000e0041\x1b[2J" in out  # the caller's line


def test_the_report_file_is_escaped_as_export_json_is(calls: Calls) -> None:
    report = (calls.folder / "report.json").read_text("utf-8")
    assert not raw(report)
    data = json.loads(report)
    assert data["units"][0]["generated"] == f"Hi {said(SAYS)}"
    assert data["caller_turns"] == [said(CALLER)]
    exported = calls.folder / "exported.json"
    calls.cli("sessions", "export", data["session_id"][:8], "--json", str(exported))
    assert not raw(exported.read_text("utf-8")) and json.loads(exported.read_text()) == data


def test_sessions_show_prints_them_spelt_out(calls: Calls) -> None:
    session = json.loads((calls.folder / "report.json").read_text())["session_id"][:8]
    shown = calls.cli("sessions", "show", session)
    assert not raw(shown) and f"'Hi {SHOWN}'" in shown
    for printed in (
        calls.cli("sessions", "show", session, "--json"),
        calls.cli("sessions", "list", "--json"),
        calls.cli("sessions", "export", session, "--md", "-"),
    ):
        assert not raw(printed), printed


def test_sessions_script_prints_the_callers_line_escaped_and_reads_back(calls: Calls) -> None:
    session = json.loads((calls.folder / "report.json").read_text())["session_id"][:8]
    script = calls.cli("sessions", "script", session)
    assert not raw(script), script
    assert r"\u202e\u009b\uffff\U000e0041\u001b[2J" in script
    assert tomllib.loads(script)["step"] == [{"say": said(CALLER)}]
