"""Hostile caller scripts under ``sandbox test``: each bad script fails alone, in words, with
every problem it has; the others still run; no number runs unbounded and the output stays
a screenful."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from cli_rig import sandbox_cli

from sandbox.caller.expect import Failure
from sandbox.testing.script_tests import MAX_FAILURES, bounded

BIG = 2**63 - 1
GOOD = '[[step]]\nsay = "What are your opening hours?"\n'
PHRASES = ", ".join(f'"w{i}"' for i in range(200_000))
#: Each hostile script, and the words its FAIL must carry.
HOSTILE = {
    "test_brackets.toml": (
        "x = " + "[" * 3000 + "]" * 3000 + "\n" + GOOD,
        "nests lists and tables in each other more than 32 deep",
    ),
    "test_tables.toml": (
        "x = " + "{a=" * 3000 + "1" + "}" * 3000 + "\n" + GOOD,
        "nests lists and tables in each other more than 32 deep",
    ),
    "test_rate.toml": (
        f"ms_per_word = {BIG}\n{GOOD}",
        "ms_per_word must be a positive whole number of ms up to 10,000",
    ),
    "test_silence.toml": (
        f"{GOOD}[[step]]\nsilence_ms = {BIG}\n",
        "step 2: silence_ms must be a whole number of ms from 0 to 600,000",
    ),
    "test_phrases.toml": (
        f"{GOOD}expect = {{ heard_contains = [{PHRASES}] }}\n",
        "step 1: expect.heard_contains lists 200,000 phrases; at most 100",
    ),
}


def test_each_hostile_script_fails_alone_in_words(home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "scripts"
    folder.mkdir()
    for name, (text, _) in HOSTILE.items():
        (folder / name).write_text(text)
    (folder / "test_two_mistakes.toml").write_text(
        f'ms_per_word = 0\n[[step]]\nbarge_in = "a"\nafter_words = {BIG}\n'
    )
    (folder / "test_good.toml").write_text(
        GOOD + 'expect = { heard_contains = "opening hours", no_errors = true }\n'
    )
    junit, results = tmp_path / "junit.xml", tmp_path / "results.json"
    done = sandbox_cli(
        home, "test", str(folder), "--junit", str(junit), "--json", str(results), timeout=120
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "unexpected error" not in done.stderr and "Traceback" not in done.stderr
    assert len(done.stdout) < 5_000  # 200,000 phrases once printed 39 MB
    assert done.stdout.splitlines()[-1].startswith("1 passed, 6 failed, 0 broken in ")
    failed = {
        line.split()[1].rsplit("/", 1)[-1]
        for line in done.stdout.splitlines()
        if line.startswith("FAIL ")
    }
    assert failed == {*HOSTILE, "test_two_mistakes.toml"}
    for name, (_, words) in HOSTILE.items():
        shown = done.stdout.split(f"/{name}  ", 1)[1].splitlines()[1]
        assert shown.startswith("  script: expected a caller script that reads; ")
        assert words in shown
    # Every problem of a script, not only its first.
    assert "reads; ms_per_word must be a positive whole number of ms up to 10,000 (got 0)" in (
        done.stdout
    )
    assert "reads; step 1: after_words must be a whole number from 0 to 10,000" in done.stdout
    statuses = {
        s["path"].rsplit("/", 1)[-1]: s["status"]
        for s in json.loads(results.read_text())["scripts"]
    }
    assert statuses.pop("test_good.toml") == "passed"
    assert set(statuses.values()) == {"failed"}
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "6"


def test_the_ends_of_every_range_play_through_and_end(home: Path, tmp_path: Path) -> None:
    script = tmp_path / "test_edges.toml"
    script.write_text(
        "ms_per_word = 10000\n"
        '[[step]]\nsay = "What are your opening hours?"\nexpect = { reply_within_ms = 600000 }\n'
        "[[step]]\nsilence_ms = 600000\n"
        '[[step]]\nsay = "Thanks"\nthen = "bye"\npause_ms = 60000\n'
        "[[step]]\nend = true\n"
    )
    # Ten minutes of silence and a word every ten seconds, on the simulated clock: seconds.
    done = sandbox_cli(home, "test", str(script), timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("PASS ")


def test_thousands_of_missed_expectations_print_a_screenful(home: Path, tmp_path: Path) -> None:
    phrases = ", ".join(f'"absent{i}"' for i in range(100))
    step = f'[[step]]\nsay = "hello"\nexpect = {{ heard_contains = [{phrases}] }}\n'
    script = tmp_path / "test_misses.toml"
    script.write_text(step * 5)
    results = tmp_path / "results.json"
    done = sandbox_cli(home, "test", str(script), "--brain", "echo", "--json", str(results))
    assert done.returncode == 1, done.stdout + done.stderr
    misses = [line for line in done.stdout.splitlines() if "expected heard_contains" in line]
    assert len(misses) == MAX_FAILURES
    assert "  script: expected at most 50 failures listed; 450 more not listed" in done.stdout
    ((written,),) = (s["runs"] for s in json.loads(results.read_text())["scripts"])
    assert len(written["failures"]) == MAX_FAILURES + 1


def test_failures_past_the_cap_are_counted_not_listed() -> None:
    few = [Failure("step 1", "x", "y")] * MAX_FAILURES
    assert bounded(few) == tuple(few)
    many = bounded([Failure(f"step {i}", "x", "y") for i in range(MAX_FAILURES + 7)])
    assert len(many) == MAX_FAILURES + 1
    assert many[-2].where == f"step {MAX_FAILURES - 1}"
    assert str(many[-1]) == "script: expected at most 50 failures listed; 7 more not listed"
