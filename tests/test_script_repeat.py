"""``sandbox test --repeat N`` through the real CLI, over the real WebSocket: a brain that
misses one call in three is named flaky, not passed, in the terminal's table, the JUnit and
the JSON, which carry each script's pass rate and reply-time percentiles consistently."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest
from brain_process import serving
from cli_rig import sandbox_cli

#: An SDK brain that answers every third call it is given with words the script rejects:
#: its calls are counted, so the misses are as many however the runs interleave.
EVERY_THIRD = """
from sandbox.sdk import Brain, SpeechChunk, SpeechEnd, SpeechStart

class EveryThird(Brain):
    calls = 0

    async def greet(self, session):
        EveryThird.calls += 1
        self.missing = EveryThird.calls % 3 == 0
        return "Hello."

    async def on_user_message(self, session, msg):
        yield SpeechStart()
        yield SpeechChunk("Pardon?" if self.missing else f"You said: {msg.text}")
        yield SpeechEnd()
"""
SCRIPT = (
    '[[step]]\nsay = "What are your opening hours?"\n'
    'expect = { heard_contains = "opening hours" }\n'
    '[[step]]\nsay = "Thanks."\n'
)


def _script(folder: Path) -> Path:
    script = folder / "test_hours.toml"
    script.write_text(SCRIPT)
    return script


def test_a_brain_that_misses_one_call_in_three_is_flaky(home: Path, tmp_path: Path) -> None:
    (tmp_path / "every_third.py").write_text(EVERY_THIRD)
    script = _script(tmp_path)
    junit, results = tmp_path / "junit.xml", tmp_path / "results.json"
    with serving(tmp_path, home, "every_third:EveryThird") as (url, _):
        done = sandbox_cli(
            home, "test", str(script), "--brain", url, "--repeat", "3",
            "--junit", str(junit), "--json", str(results),
        )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr  # flaky is not passed
    lines = done.stdout.splitlines()
    runs = [line.split()[0] for line in lines if line.endswith(" s") and "test_hours" in line]
    assert sorted(runs) == ["FAIL", "PASS", "PASS"]
    assert "expected heard_contains 'opening hours'; heard 'Pardon?'" in done.stdout
    header = next(line for line in lines if line.startswith("status"))
    assert header.split() == ["status", "script", "passed", "reply", "p50", "reply", "p90",
                              "reply", "p99"]  # fmt: skip
    row = lines[lines.index(header) + 1].split()
    assert row[:4] == ["FLAKY", str(script), "2/3", "(67%)"]
    table_ms = [int(cell) for cell in row[4::2]]
    assert lines[-1].startswith("0 passed, 1 flaky, 0 failed, 0 broken in ")

    written = json.loads(results.read_text())
    assert written["exit_status"] == 1 and written["repeat"] == 3
    (entry,) = written["scripts"]
    assert (entry["status"], entry["runs_passed"], entry["runs_total"]) == ("flaky", 2, 3)
    assert entry["pass_rate"] == round(2 / 3, 3)
    assert sorted(r["status"] for r in entry["runs"]) == ["failed", "passed", "passed"]
    replies = sorted(a["reply_ms"] for r in entry["runs"] for a in r["answers"])
    assert len(replies) == 6  # two answered turns a run
    figures = [entry[f"reply_ms_{name}"] for name in ("p50", "p90", "p99")]
    assert figures == table_ms and figures == sorted(figures)
    assert all(ms in replies for ms in figures)  # nearest rank: a time that was measured

    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("1", "1", "0")
    (case,) = suite.iter("testcase")
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "flaky"
    assert failure.get("message") == "flaky: passed 2 of 3 runs"
    (failed_run,) = (r for r in entry["runs"] if r["status"] == "failed")
    number, session = failed_run["run"], failed_run["session_id"]
    assert (failure.text or "").splitlines()[1:] == [  # the failed run's lines, and no other's
        f"run {number}: step 1 (say): expected heard_contains 'opening hours'; heard 'Pardon?'",
        f"run {number}: session {session}: sandbox sessions show {session}",
    ]
    properties = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert properties["runs_passed"] == "2" and properties["runs_total"] == "3"
    assert [properties[f"reply_ms_{n}"] for n in ("p50", "p90", "p99")] == [
        str(ms) for ms in figures
    ]


def test_a_brain_that_always_answers_passes_every_run(home: Path, tmp_path: Path) -> None:
    done = sandbox_cli(home, "test", str(_script(tmp_path)), "--brain", "echo", "--repeat", "4")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert sum(line.startswith("PASS ") and line.endswith(" s") for line in lines) == 4
    assert lines[-2].split()[:3] == ["PASS", str(tmp_path / "test_hours.toml"), "4/4"]
    assert lines[-1].startswith("1 passed, 0 flaky, 0 failed, 0 broken in ")


def test_a_repeat_below_one_is_refused_in_one_line(home: Path, tmp_path: Path) -> None:
    done = sandbox_cli(home, "test", str(_script(tmp_path)), "--repeat", "0")
    assert done.returncode == 2
    *usage, line = done.stderr.strip().splitlines()  # argparse's usage, then one line
    assert all(u.startswith(("usage:", " ")) for u in usage), done.stderr
    assert line.endswith("argument --repeat: must be a whole number from 1 to 1,000 (got 0)")


@pytest.mark.audio
@pytest.mark.slow  # one real-audio run is CI's (test_script_tests); this is that path, repeated
def test_each_run_with_real_audio_is_a_call_of_its_own(
    pulse: ModuleType, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in pulse.env().items():
        monkeypatch.setenv(name, value)
    results = tmp_path / "results.json"
    done = sandbox_cli(
        home, "test", str(_script(tmp_path)), "--brain", "echo", "--audio", "real",
        "--repeat", "2", "--json", str(results), timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (entry,) = json.loads(results.read_text())["scripts"]
    assert (entry["status"], entry["runs_passed"], entry["runs_total"]) == ("passed", 2, 2)
    assert len({run["session_id"] for run in entry["runs"]}) == 2
    replies = [a["reply_ms"] for run in entry["runs"] for a in run["answers"]]
    assert None not in replies and entry["reply_ms_p99"] == max(replies)
