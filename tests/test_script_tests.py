"""Caller scripts as tests: ``sandbox test`` through the real CLI and the pytest plugin through
pytester, each running the README's example brain's scripts over the real WebSocket."""

from __future__ import annotations

import json
import shutil
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest
import tomli_w
from cli_rig import sandbox_cli
from hostile_text_brain import HOSTILE, hostile_text_brain
from readme import code_block

from sandbox.brains.hostile import hostile_process
from sandbox.errors import UsageError
from sandbox.testing.script_tests import find_scripts

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "brain"
PLUGIN = "sandbox.testing.plugin"
pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _only_our_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    """pytester's runs are in this process: only the plugin under test is loaded in them (an
    installed plugin's session hooks, the snapshot plugin's, would act on this session's
    state too)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


#: One expectation of the example's first script, and what makes it fail.
GOOD = 'heard_contains = "Ada"'
BAD = 'heard_contains = "Bob"'


def _example(folder: Path, *, failing: bool = False) -> Path:
    """A copy of the example brain's folder; with ``failing``, one expectation it misses."""
    shutil.copytree(EXAMPLE, folder)
    if failing:
        script = folder / "test_answers.toml"
        text = script.read_text()
        assert GOOD in text
        script.write_text(text.replace(GOOD, BAD))
    return folder


def test_the_example_brain_is_the_readmes() -> None:
    assert (EXAMPLE / "mymodule.py").read_text() == code_block("Writing a brain", "python")
    assert sorted(p.name for p in EXAMPLE.glob("test_*.toml")) == [
        "test_answers.toml",
        "test_barge_in.toml",
    ]
    workflow = (EXAMPLE / ".github" / "workflows" / "voice.yml").read_text()
    assert "pytest" in workflow and "sandbox test --brain" in workflow


def test_sandbox_test_passes_the_examples_scripts(home: Path, tmp_path: Path) -> None:
    folder = _example(tmp_path / "brain")
    junit, results = tmp_path / "out" / "junit.xml", tmp_path / "out" / "results.json"
    done = sandbox_cli(
        home, "test", str(folder), "--brain", "echo", "--junit", str(junit), "--json", str(results)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert sorted(line.split()[0] for line in lines[:2]) == ["PASS", "PASS"]
    assert lines[-1].startswith("2 passed, 0 failed, 0 broken in ")
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "0", "0")
    written = json.loads(results.read_text())
    assert written["exit_status"] == 0
    answers = {s["path"].rsplit("/", 1)[-1]: s["runs"][0]["answers"] for s in written["scripts"]}
    first, second = answers["test_answers.toml"]
    assert first["step"] == 1 and first["heard"] == "You said: What are your opening hours?"
    assert 0 <= first["reply_ms"] <= 1500 and not first["interrupted"]
    assert second["heard"] == "You said: My name is Ada."
    cut, barge_in = answers["test_barge_in.toml"]
    assert cut["interrupted"] and cut["heard"] == "You said: Tell"
    assert barge_in["heard"] == "You said: Sorry, one more thing"


def test_a_failed_expectation_fails_sandbox_test_with_what_was_heard(
    home: Path, tmp_path: Path
) -> None:
    folder = _example(tmp_path / "brain", failing=True)
    junit = tmp_path / "junit.xml"
    done = sandbox_cli(home, "test", str(folder), "--brain", "echo", "--junit", str(junit))
    assert done.returncode == 1, done.stdout + done.stderr
    expected = "step 2 (say): expected heard_contains 'Bob'; heard 'You said: My name is Ada.'"
    assert f"  {expected}\n" in done.stdout
    assert "1 passed, 1 failed, 0 broken" in done.stdout
    cases = {c.get("name"): c.find("failure") for c in ET.parse(junit).getroot().iter("testcase")}
    assert cases["test_barge_in"] is None
    failure = cases["test_answers"]
    assert failure is not None and failure.get("message") == expected


def test_the_default_brain_is_the_built_in_one(home: Path, tmp_path: Path) -> None:
    script = tmp_path / "test_hours.toml"
    script.write_text(
        '[[step]]\nsay = "What are your opening hours?"\n'
        'expect = { heard_contains = "opening hours", no_errors = true }\n'
    )
    done = sandbox_cli(home, "test", str(script))
    assert done.returncode == 0, done.stdout + done.stderr
    # The run's session is kept, tagged: left out of the list unless asked.
    listed = sandbox_cli(home, "sessions", "list")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == [
        "(1 recorded by test runs not shown: --all or --tests shows them)"
    ]
    for asked in ("--all", "--tests"):
        rows = sandbox_cli(home, "sessions", "list", asked).stdout.splitlines()
        assert len(rows) == 2 and rows[1].split()[5] == "test", rows
    as_json = sandbox_cli(home, "sessions", "list", "--tests", "--json").stdout.splitlines()
    assert [json.loads(line)["origin"] for line in as_json] == ["test"]


def test_a_brain_that_breaks_the_wire_is_exit_2(home: Path, tmp_path: Path) -> None:
    folder = _example(tmp_path / "brain")
    with hostile_process("future_turns") as url:
        done = sandbox_cli(home, "test", str(folder / "test_answers.toml"), "--brain", url)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout.startswith("BROKEN")
    assert "  wire rule broken: " in done.stdout


def test_a_path_that_holds_no_script_is_a_usage_error_exit_2(home: Path, tmp_path: Path) -> None:
    # 2, as argparse's own usage errors: a CI tells a typo from a failed expectation (1).
    missing = sandbox_cli(home, "test", str(tmp_path / "test_gone.toml"))
    assert missing.returncode == 2, missing.stdout + missing.stderr
    assert "test_gone.toml: no such file or folder" in missing.stderr
    empty = sandbox_cli(home, "test", str(tmp_path))
    assert empty.returncode == 2 and "no caller scripts (test_*.toml) under" in empty.stderr


def test_an_unreachable_brain_is_exit_2(home: Path, tmp_path: Path) -> None:
    folder = _example(tmp_path / "brain")
    script = str(folder / "test_answers.toml")
    done = sandbox_cli(home, "test", script, "--brain", "ws://127.0.0.1:9/brain")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "  the brain could not be reached: could not reach the brain at" in done.stdout


def test_a_brains_words_are_data_in_every_output(home: Path, tmp_path: Path) -> None:
    script = tmp_path / "test_hostile.toml"
    step = {"say": HOSTILE, "expect": {"heard_contains": "goodbye"}}
    # Its Errors (markup, escapes) come with the greeting: the whole call's are judged.
    script.write_text(tomli_w.dumps({"step": [step], "expect": {"no_errors": True}}))
    junit, results = tmp_path / "junit.xml", tmp_path / "results.json"
    with hostile_text_brain() as url:
        done = sandbox_cli(
            home, "test", str(script), "--brain", url, "--junit", str(junit), "--json", str(results)
        )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "  end of call: expected no_errors true; errors: 'ERROR_CODE_INTERNAL: [bold" in (
        done.stdout
    )
    for text in (done.stdout, junit.read_text(), results.read_text()):
        assert "\x1b" not in text and "\u202e" not in text and "\r" not in text
    assert "\\x1b[2J" in done.stdout and "\\u202eevil" in done.stdout
    ET.parse(junit)  # markup in the brain's words is text to the XML, never elements


def test_the_plugin_runs_the_examples_scripts_with_the_authors_brain(
    pytester: pytest.Pytester, home: Path
) -> None:
    _example(pytester.path / "brain")
    result = pytester.runpytest("-p", PLUGIN, "brain")
    result.assert_outcomes(passed=2)


def test_a_failed_expectation_fails_the_pytest_item_with_what_was_heard(
    pytester: pytest.Pytester, home: Path
) -> None:
    folder = _example(pytester.path / "brain", failing=True)
    (folder / "conftest.py").unlink()  # the brain named on the command line instead
    result = pytester.runpytest("-p", PLUGIN, "--voqalize-brain", "echo", "brain")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "test_answers.toml failed:",
            "  step 2 (say): expected heard_contains 'Bob'; heard 'You said: My name is Ada.'",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_the_plugin_leaves_every_other_file_alone(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    pytester.makefile(".toml", data='[[step]]\nsay = "not a test"\n')
    pytester.makefile(".json", test_data="{}")
    result = pytester.runpytest("-p", PLUGIN)
    result.assert_outcomes(passed=1)


def test_the_plugin_is_registered_for_pytest_and_this_suite_has_no_scripts() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["pytest11"] == {PLUGIN: PLUGIN}
    assert "pytest>=8" in project["optional-dependencies"]["test"]
    # Installed, the plugin collects test_*.toml wherever pytest looks: none in our tests.
    assert not list((REPO / "tests").rglob("test_*.toml"))


def test_the_readmes_script_passes_against_the_echo_brain(home: Path, tmp_path: Path) -> None:
    script = tmp_path / "test_readme.toml"
    script.write_text(code_block("Testing a brain with caller scripts", "toml"))
    done = sandbox_cli(home, "test", str(script), "--brain", "echo")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.audio
def test_a_script_runs_with_real_audio_at_the_devices(
    pulse: ModuleType, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in pulse.env().items():
        monkeypatch.setenv(name, value)
    script = tmp_path / "test_voice.toml"
    script.write_text(
        '[[step]]\nsay = "What are your opening hours?"\n'
        'expect = { heard_contains = "opening hours", reply_within_ms = 5000, no_errors = true }\n'
        '[[step]]\nsay = "Thank you."\nexpect = { heard_contains = "nine o\'clock" }\n'
    )
    done = sandbox_cli(home, "test", str(script), "--brain", "echo", "--audio", "real")
    assert done.returncode == 1, done.stdout + done.stderr
    # Whisper heard the caller's voice, the echo brain said it back, and only that fails.
    assert "  step 2 (say): expected heard_contains 'nine o'clock'; heard 'You said" in (
        done.stdout
    )
    assert "step 1" not in done.stdout


def test_scripts_are_found_where_pytest_would_look(tmp_path: Path) -> None:
    for name in ("a/test_one.toml", "test_two.toml", ".venv/lib/test_x.toml", "a/one.toml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / "node_modules" / "test_y.toml").parent.mkdir()
    (tmp_path / "node_modules" / "test_y.toml").write_text("")
    found = find_scripts([tmp_path, tmp_path / "a" / "one.toml"])
    assert [p.relative_to(tmp_path).as_posix() for p in found] == [
        "a/test_one.toml",
        "test_two.toml",
        "a/one.toml",
    ]
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match="no caller scripts"):
        find_scripts([tmp_path / "empty"])


def test_the_plugin_refuses_a_brain_that_is_no_url_as_it_parses_its_options(
    pytester: pytest.Pytester,
) -> None:
    _example(pytester.path / "brain")
    result = pytester.runpytest("-p", PLUGIN, "--voqalize-brain", "ws://127.0.0.1:99999/b", "brain")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*error: argument --voqalize-brain: 'ws://127.0.0.1:99999/b' is neither a built-in*"]
    )
    assert "its port is not from 1 to 65,535" in result.stderr.str()
    assert "Traceback" not in result.stderr.str() + result.stdout.str()
