"""A brain that awaits a tool mid-unit, as the SDK's own pattern has it, is heard whole.

The wire (001, "Invariants"): "Every SpeechStart is closed by a SpeechEnd or a SpeechCancel",
both the brain's; and ("What the SDK makes of it") "Awaiting between yields is how a tool call
sits between two things the brain says." So the runtime closes no unit, sends no Error, and
the caller hears the filler, dead air, then the answer. The dead air is shown while it lasts
(``sandbox call``, the app's status line) and kept (the report's ``dead_air``, ``sessions
show``, its latency table and the exported page). Each test serves the brain from its own file
with ``sandbox brain`` and calls it with ``sandbox call`` or ``sandbox run``, as an author would.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from brain_process import reported_call, run, sandbox_command, sandbox_env, serving
from caller_audio import stretches
from ui_tmux import sandbox_run
from waiting import until

from sandbox.audio.stt import Transcriber
from sandbox.call.core import DEAD_AIR_MS
from sandbox.call.sim_playout import SimPlayout
from sandbox.call.units import Fate
from sandbox.caller.script import parse_script
from sandbox.caller.script_runner import ScriptRunner, play_through
from sandbox.host.launch import CallOptions, open_call
from sandbox.paths import HOME_ENV
from sandbox.record.store import SessionStore

FILLER = "Let me check that for you. "
ANSWER = "Your order ships tomorrow."
BRAIN = """\
import asyncio
import json

from sandbox.sdk import Brain, SpeechChunk, SpeechEnd, SpeechStart


class ToolBrain(Brain):
    async def greet(self, session):
        return "Hello."

    async def on_user_message(self, session, msg):
        yield SpeechStart()
        yield SpeechChunk({filler!r})
        await asyncio.sleep({wait_s})  # the order lookup
        yield SpeechChunk({answer!r})
        yield SpeechEnd()

    async def on_finalize(self, session, fin):
        with open({log!r}, "a") as out:
            out.write(json.dumps({{"heard": fin.heard, "generated": fin.generated,
                                  "interrupted": fin.interrupted}}) + "\\n")
"""
ASK = 'ms_per_word = 100\n[[step]]\nsay = "Where is my order?"\n[[step]]\nend = true\n'


def served_brain(tmp_path: Path, wait_s: int) -> tuple[Path, Path]:
    """The brain's folder (``toolbrain.py`` in it) and the file its ``on_finalize`` logs to."""
    log = tmp_path / "finalized.jsonl"
    source = BRAIN.format(filler=FILLER, answer=ANSWER, wait_s=wait_s, log=str(log))
    (tmp_path / "toolbrain.py").write_text(source)
    return tmp_path, log


def finalized(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def assert_heard_whole(report: dict[str, Any], log: Path, wait_s: int) -> dict[str, Any]:
    """The reply's one unit played whole, the brain was told so, nothing was sent to it
    about the wait, and the dead air was kept: returns that dead air's entry."""
    reply = report["units"][1]
    assert reply["heard"] == reply["generated"] == FILLER + ANSWER
    assert reply["fate"] == "played" and report["errors"] == []
    assert finalized(log)[-1] == {
        "heard": FILLER + ANSWER,
        "generated": FILLER + ANSWER,
        "interrupted": False,
    }
    (gap,) = report["dead_air"]
    assert (gap["turn_id"], gap["speech_id"]) == (2, reply["speech_id"])
    # From the filler's last word (it plays first) to the answer's chunk.
    assert wait_s * 1000 - 3_000 <= gap["silent_ms"] <= wait_s * 1000 + 500, gap
    assert report["stalls"] == [] and report["outcome"] != "not_reached"
    return dict(gap)


@pytest.mark.parametrize("wait_s", [5, pytest.param(30, marks=pytest.mark.slow)])
def test_a_tool_wait_mid_unit_is_heard_whole_in_a_simulated_call(
    tmp_path: Path, wait_s: int
) -> None:
    folder, log = served_brain(tmp_path, wait_s)
    home = tmp_path / "home"
    with serving(folder, home, "./toolbrain.py:ToolBrain") as (url, _proc):
        done, report = reported_call(folder, home, ASK, "--brain", url)
    assert done.returncode == 0, done.stdout + done.stderr
    gap = assert_heard_whole(report, log, wait_s)
    sid = gap["speech_id"]
    # Said while it lasts, then with its length.
    assert f"the brain has been silent mid-sentence for 1 s (turn 2, unit {sid})" in done.stdout
    assert f"the brain was silent mid-sentence for {gap['silent_ms'] / 1000:.1f} s" in done.stdout
    assert "TIMEOUT" not in done.stdout
    session = report["session_id"]
    shown = run(folder, home, "sessions", "show", session[:8])
    assert (
        f"⏸ the brain was silent mid-sentence for {gap['silent_ms'] / 1000:.1f} s" in shown.stdout
    )
    latency = run(folder, home, "sessions", "show", session[:8], "--latency")
    assert "dead air" in latency.stdout and str(gap["silent_ms"]) in latency.stdout
    page = folder / "call.html"
    exported = run(folder, home, "export", session[:8], "--html", str(page))
    assert exported.returncode == 0, exported.stdout + exported.stderr
    html = page.read_text()
    assert f"dead air {gap['silent_ms'] / 1000:.1f} s" in html  # the timeline's mark
    assert "the brain was silent mid-sentence" in html  # the conversation's line


@pytest.mark.audio
@pytest.mark.parametrize("wait_s", [5, pytest.param(30, marks=pytest.mark.slow)])
def test_a_tool_wait_mid_unit_is_heard_whole_through_the_speaker(
    tmp_path: Path,
    wait_s: int,
    pulse: ModuleType,
    transcriber: Transcriber,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Real audio: the caller's line spoken into the microphone path, Whisper, Piper and the
    playout clock on PulseAudio's virtual speaker, whose monitor is recorded outside the app
    and transcribed: both halves of the reply came out of the speaker."""
    folder, log = served_brain(tmp_path, wait_s)
    home = tmp_path / "home"
    for key, value in pulse.env().items():
        monkeypatch.setenv(key, value)
    recording = tmp_path / "speaker.wav"
    with (
        serving(folder, home, "./toolbrain.py:ToolBrain") as (url, _proc),
        pulse.record_speaker(recording, rate=16000),
    ):
        done, report = reported_call(folder, home, ASK, "--brain", url, "--audio", "real")
    assert done.returncode == 0, done.stdout + done.stderr
    assert_heard_whole(report, log, wait_s)
    assert "silent mid-sentence" in done.stdout, done.stdout
    samples, _rate = pulse.read_wav(recording)
    said = " ".join(transcriber.transcribe(s, language="en").text for s in stretches(samples))
    # tiny.en reads Piper's "ships" as "sets" at times: the answer's other words say it played.
    assert "check that for you" in said.lower() and "order" in said.lower(), said
    assert said.lower().rstrip(" .").endswith("tomorrow"), said


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_the_apps_status_line_counts_the_dead_air_while_it_lasts(tmp_path: Path) -> None:
    folder, log = served_brain(tmp_path, 6)
    home = tmp_path / "home"
    args = ["--typed", "--ms-per-word", "100", "--idle-ms", "0"]
    with (
        serving(folder, home, "./toolbrain.py:ToolBrain") as (url, _proc),
        sandbox_run([*args, "--brain", url], {HOME_ENV: str(home)}) as term,
    ):
        term.wait_for(lambda s: "greeting · played" in s, "the greeting", timeout_s=60)
        term.keys("Where is my order?", "Enter")
        first = term.wait_for(lambda s: "silent mid-sentence for" in s, "the dead air notice")
        counted = re.compile(r"the brain has been silent mid-sentence for ([2-9]) s")
        later = term.wait_for(lambda s: counted.search(s) is not None, "the count to go on")
        assert "(turn 2, unit" in first and "TIMEOUT" not in later
        # The conversation keeps the gap; its line may be drawn a moment after the answer's.
        term.wait_for(
            lambda s: "ships tomorrow" in s and "the brain was silent mid-sentence for" in s,
            "the answer after the tool, and the gap kept in the conversation",
        )
        assert not counted.search(term.wait_for(lambda s: "listening" in s, "the bot to finish"))
        term.keys("C-q")
        term.wait_for(lambda s: "EXIT=0" in s, "the app to exit")
    assert finalized(log)[-1]["interrupted"] is False


def test_a_call_killed_in_dead_air_reads_back_with_the_dead_air_so_far(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a call produced is never lost: killed (``kill -9``) while its brain awaits a
    tool mid-unit, the stored session reads back with that dead air (known to have lasted at
    least to the last moment recorded: the notice, a second in) and the unit cut by the
    crash."""
    folder, _log = served_brain(tmp_path, 30)
    home = tmp_path / "home"
    monkeypatch.setenv(HOME_ENV, str(home))
    script = folder / "call.toml"
    script.write_text(ASK)
    with serving(folder, home, "./toolbrain.py:ToolBrain") as (url, _proc):
        calling = subprocess.Popen(
            sandbox_command("call", "--script", str(script), "--brain", url),
            cwd=folder,
            env=sandbox_env(home),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            assert until(lambda: _stored_kinds(home).count("dead_air") == 1, "the dead air")
        finally:
            calling.send_signal(signal.SIGKILL)
            calling.wait(10)
    with SessionStore() as store:
        (row,) = store.sessions()
    exported = run(folder, home, "export", row.id[:8], "--json", "report.json")
    assert exported.returncode == 0, exported.stdout + exported.stderr
    report = json.loads((folder / "report.json").read_text())
    (gap,) = report["dead_air"]
    assert gap["turn_id"] == 2 and gap["silent_ms"] >= DEAD_AIR_MS, gap
    assert report["units"][1]["fate"] == "crashed"
    shown_text = run(folder, home, "sessions", "show", row.id[:8]).stdout
    assert "⏸ the brain was silent mid-sentence for" in shown_text, shown_text


def _stored_kinds(home: Path) -> list[str]:
    """The kinds of the events the one session stored so far (none before it started)."""
    if not (home / "sessions.db").exists():
        return []
    with SessionStore() as store:
        rows = store.sessions()
        return [e.kind for e in store.events(rows[0].id)] if rows else []


TWO_TOOLS = """\
import asyncio

from sandbox.sdk import Brain, SpeechChunk, SpeechEnd, SpeechStart


class TwoTools(Brain):
    async def on_user_message(self, session, msg):
        yield SpeechStart()
        for step in ("Checking the order. ", "Checking the courier. "):
            yield SpeechChunk(step)
            await asyncio.sleep(2)
        yield SpeechChunk("It ships tomorrow.")
        yield SpeechEnd()
"""


async def test_a_script_step_waits_while_the_bot_shows_signs_of_life(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A step gives up after ``step_timeout_s`` with nothing from the bot, not that long
    after it began: two 2 s tool waits inside one reply (over 4 s) outlast a 3 s limit, and
    the caller still waits for the whole reply before its next line."""
    (tmp_path / "twotools.py").write_text(TWO_TOOLS)
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))  # the brain's keys, and the call's
    script = parse_script(
        'ms_per_word = 50\n[[step]]\nsay = "Where is it?"\n[[step]]\nend = true\n'
    )
    with serving(tmp_path, tmp_path / "home", "./twotools.py:TwoTools") as (url, _proc):
        options = CallOptions(brain_url=url, recording=None)
        host = await open_call(options, url, SimPlayout(ms_per_word=50))
        runner = ScriptRunner(host, script, step_timeout_s=3)
        await play_through(host, runner)
    assert runner.notes == []
    (reply,) = [u for u in host.core.units if u.turn_id == 2]
    assert reply.heard == "Checking the order. Checking the courier. It ships tomorrow."
    assert reply.fate is Fate.PLAYED
    assert len(host.core.ledger.dead_air) == 2
