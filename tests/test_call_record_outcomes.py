"""Each outcome of the call record from its real cause, end to end: a real ``sandbox call``
process, a brain over a real WebSocket (or nobody listening), and the saved session read
back through ``sandbox sessions show`` (its words and ``--json``) and ``sessions list``.

The causes: a port nobody listens on, a brain for another wire version, a greeting whose
voice cannot be loaded (a corrupt Piper model: real audio, so marked ``audio``), a caller
who only stays silent, a caller of two words, and a normal call.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from brain_process import free_port, reported_call, run, serving
from ui_brains import REFUSAL, in_thread, version_refusing_brain

from sandbox.audio.voices import catalog, default_voice
from sandbox.call.units import Fate
from sandbox.paths import HOME_ENV
from sandbox.record.store import SessionStore
from sandbox.record.stored_call import StoredCall
from sandbox.replay.timeline import Replayer

SILENT = "[[step]]\nsilence_ms = 1000\n[[step]]\nend = true\n"
TWO_WORDS = "[[step]]\nsay = 'hello there'\n"
NORMAL = (
    "ms_per_word = 30\n"
    "[[step]]\nsay = 'What are your opening hours today?'\n"
    "[[step]]\nsay = 'Thank you very much'\n"
)
#: The thin-call floor's words for a call whose caller never spoke.
NOTHING_SAID = "0 caller lines and 0 words: below the floor (2 lines or 5 words)"

Brain = Callable[[Path, Path], contextlib.AbstractContextManager[str]]


@contextlib.contextmanager
def nobody_listening(_folder: Path, _home: Path) -> Iterator[str]:
    """A brain URL on a port nothing listens on."""
    yield f"ws://127.0.0.1:{free_port()}/brain"


def refusing_version(_folder: Path, _home: Path) -> contextlib.AbstractContextManager[str]:
    """A brain for wire version 2, on a real socket: it refuses every session."""
    return in_thread(version_refusing_brain)


@contextlib.contextmanager
def echo(folder: Path, home: Path) -> Iterator[str]:
    """``sandbox brain echo`` in its own process."""
    with serving(folder, home, "echo") as (url, _proc):
        yield url


@dataclass(frozen=True)
class Recorded:
    """What the record of the call says."""

    outcome: str
    #: What its reason starts with ("" when the outcome has none).
    reason: str
    below_floor: bool
    #: The floor as ``sessions show`` words it, or None when the call was above it.
    floor: str | None


NOT_DIALED = "the dial failed: could not reach the brain"
REFUSED = f"the brain refused the session's version: {REFUSAL}"
TWO_WORDS_FLOOR = "1 caller line and 2 words: below the floor (2 lines or 5 words)"
#: The cause (a brain, or nobody, and what the caller does) and what the record says.
CASES: dict[str, tuple[Brain, str, Recorded]] = {
    "a port nobody listens on": (
        nobody_listening,
        SILENT,
        Recorded("not_reached", NOT_DIALED, True, NOTHING_SAID),
    ),
    "a version-refusing brain": (
        refusing_version,
        SILENT,
        Recorded("not_reached", REFUSED, True, NOTHING_SAID),
    ),
    "a silent caller": (echo, SILENT, Recorded("no_answer", "", True, NOTHING_SAID)),
    "a two-word caller": (
        echo,
        TWO_WORDS,
        Recorded("not_a_conversation", "", True, TWO_WORDS_FLOOR),
    ),
    "a normal call": (echo, NORMAL, Recorded("completed", "", False, None)),
}


#: Causes whose outcome CI already sees end to end elsewhere (test_headless_call's two-word caller).
SLOW_CASES = {"a two-word caller"}


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW_CASES else []) for n in CASES]
)
def test_each_outcome_from_its_real_cause(name: str, tmp_path: Path) -> None:
    (brain, script, expected), home = CASES[name], tmp_path / "home"
    with brain(tmp_path, home) as url:
        done, report = reported_call(tmp_path, home, script, "--brain", url, "--idle-ms", "0")
    assert done.returncode == (1 if expected.outcome == "not_reached" else 0), done.stdout
    _assert_recorded(tmp_path, home, report, expected)


def _assert_recorded(folder: Path, home: Path, report: dict[str, Any], case: Recorded) -> None:
    """The outcome, its reason and the floor: in the report's record, in the stored session
    (``sessions show --json`` and its words) and in ``sessions list``."""
    record = report["record"]
    assert report["outcome"] == record["outcome"] == case.outcome
    assert record["reason"].startswith(case.reason) and bool(record["reason"]) == bool(case.reason)
    assert record["below_floor"] is case.below_floor
    # 003: a line that never rang teaches nothing ("No lead, no facts"), thin or not.
    skipped = case.below_floor or case.outcome == "not_reached"
    assert record["summary"].startswith("skipped" if skipped else "allowed")

    session = report["session_id"][:8]
    stored = _sandbox(folder, home, "sessions", "show", session, "--json")
    assert json.loads(stored)["record"] == record

    shown = _sandbox(folder, home, "sessions", "show", session)
    card = shown.split("the call record:\n", 1)[1].splitlines()
    assert card[0] == "  outcome " + case.outcome + (f": {record['reason']}" if case.reason else "")
    if case.floor is None:
        assert "below the floor" not in shown
    else:
        assert f"  below the floor: {case.floor}; summary skipped" in card[1:3]
    if case.outcome == "not_reached":
        assert (
            card[1]
            == "  summary skipped, no name or values kept: a line that never rang says nothing"
        )

    listed = _sandbox(folder, home, "sessions", "list")
    row = next(line for line in listed.splitlines() if line.startswith(session))
    assert case.outcome in row


def _sandbox(folder: Path, home: Path, *args: str) -> str:
    done = run(folder, home, *args)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    return done.stdout


AMY_GREETS = '''
from sandbox.sdk import Brain, Config, Session, TtsConfig


class AmyGreets(Brain):
    """Greets in Amy's voice."""

    async def greet(self, session: Session) -> str:
        await session.configure(Config(tts=TtsConfig(voice="amy")))
        return "Hello, this is Amy speaking."
'''


#: A caller who speaks after the greeting that never came: still a silent failure
#: (docs/call-record.md).
TALKS_AFTER = "[[step]]\ntype = 'Hello? I cannot hear anything at all'\n[[step]]\nend = true\n"


@pytest.mark.audio
@pytest.mark.parametrize(
    "script",
    # The caller who talks after is the harder case; the silent one's kind it covers.
    [pytest.param(SILENT, marks=pytest.mark.slow), TALKS_AFTER],
    ids=["silent caller", "talks after"],
)
def test_a_greeting_that_cannot_be_synthesised_is_a_silent_failure(
    script: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Amy's Piper model in the data dir is corrupt (its config is whole, so Amy is listed
    as installed and the Config is accepted): the real-audio call cannot load the voice
    for the greeting, nobody hears a word, and the record says why, whether the caller
    then stays silent or speaks."""
    home = tmp_path / "home"
    monkeypatch.setenv(HOME_ENV, str(home))  # for reading the session back in this process
    voices = home / "voices"
    voices.mkdir(parents=True)
    joe = catalog()[default_voice()]
    assert joe.config_path is not None
    (voices / "en_US-amy-medium.onnx").write_bytes(b"not an ONNX model\n" * 64)
    shutil.copy(joe.config_path, voices / "en_US-amy-medium.onnx.json")
    (tmp_path / "amy.py").write_text(AMY_GREETS)
    with serving(tmp_path, home, "./amy.py:AmyGreets") as (url, _proc):
        done, report = reported_call(
            tmp_path, home, script, "--brain", url, "--audio", "real", "--speaker", "none"
        )
    assert done.returncode == 1, done.stdout + done.stderr
    (greeting,) = report["units"]
    assert greeting["fate"] == "unspoken" and greeting["heard"] == ""
    with SessionStore() as store:
        replayer = Replayer.of(StoredCall.load(store, store.find(report["session_id"])))
    replayer.seek(replayer.duration_ms)
    assert replayer.view.units[greeting["speech_id"]].fate is Fate.UNSPOKEN
    why = "the greeting could not be spoken: a silent failure; cannot load voice amy"
    floor = NOTHING_SAID if script == SILENT else None  # seven words: above the floor
    expected = Recorded("not_reached", why, floor is not None, floor)
    _assert_recorded(tmp_path, home, report, expected)
