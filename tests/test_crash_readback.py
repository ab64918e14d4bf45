"""A call killed (``kill -9``) at random moments reads back exactly what was committed.

Each kill is of a real ``sandbox call`` process at a seeded random moment of the bot's
speech. Read back through ``sandbox sessions show ID --json``, every unit heard exactly the
``word_played`` events the store committed before the kill (read straight from the SQLite
file), the unit in play is cut by the crash (fate ``crashed``, not abandoned by the caller),
the session stays ``unfinished``, and ``sandbox replay ID --brain builtin`` re-drives the
report without crashing (its verdict may be "changed": the original was cut short).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cli_rig import sandbox_cli
from ui_tmux import sandbox_run
from waiting import until

from sandbox.call.heard import normalize
from sandbox.call.played import WordPlayed
from sandbox.call.sim_playout import SimPlayout
from sandbox.call.units import Fate
from sandbox.paths import HOME_ENV
from sandbox.record.export import session_report_json
from sandbox.record.store import SessionStore
from sandbox.replay.source import open_recording
from sandbox.ui.lines import unit_state

SIM_SCRIPT = """\
ms_per_word = 40
[[step]]
say = "What are your opening hours?"
[[step]]
barge_in = "Sorry, how much is a class?"
after_words = 6
[[step]]
say = "And where are you?"
[[step]]
end = true
"""
AUDIO_SCRIPT = """\
[[step]]
say = "What are your opening hours?"
[[step]]
say = "And how much is a class?"
"""
#: The simulated bot's speaking rate: a reply of 35 words plays in 1.4 s.
SIM_MS_PER_WORD = "40"
#: How many sim calls run at once (two cores, shared).
AT_ONCE = 4


@dataclass(frozen=True)
class Killed:
    """One call killed mid-call: its session, and how long after its cue it was killed."""

    session_id: str
    delay_s: float


def _query(home: Path, sql: str, *params: object) -> list[tuple[Any, ...]]:
    """Rows straight from the store's SQLite file (read-only; empty while it is not there)."""
    path = home / "sessions.db"
    if not path.exists():
        return []
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            return db.execute(sql, params).fetchall()
        finally:
            db.close()
    except sqlite3.OperationalError:
        return []  # created but not yet laid out


def _played(home: Path, session_id: str) -> list[tuple[int, str]]:
    """The session's committed ``word_played`` events: (speech id, word), in order."""
    rows = _query(
        home,
        "SELECT data FROM events WHERE session_id = ? AND kind = 'word_played' ORDER BY seq",
        session_id,
    )
    return [(int(d["speech_id"]), str(d["word"])) for d in (json.loads(r[0]) for r in rows)]


def _kill_calls(
    home: Path, call: list[str], cue: Callable[[list[tuple[int, str]]], bool], delays: list[float]
) -> list[Killed]:
    """Run ``sandbox call`` once per delay, ``AT_ONCE`` at a time, all into one store; kill
    each ``-9`` its delay after ``cue`` first holds of its committed played words."""
    starting = threading.Lock()  # one start at a time, so each process's new row is its own
    known: set[str] = set()

    def one(delay: float) -> Killed:
        with starting:
            proc = subprocess.Popen(
                [sys.executable, "-m", "sandbox.cli", *call],
                env={**os.environ, HOME_ENV: str(home)},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )

            def new_row() -> str | None:
                fresh = {r[0] for r in _query(home, "SELECT id FROM sessions")} - known
                return fresh.pop() if fresh else None

            session_id = str(until(new_row, "the call's session to be recorded"))
            known.add(session_id)
        try:
            until(lambda: cue(_played(home, session_id)), "the bot to speak")
            time.sleep(delay)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)
        assert proc.returncode == -signal.SIGKILL, "the call ended before its kill"
        return Killed(session_id, delay)

    with ThreadPoolExecutor(AT_ONCE) as pool:
        return list(pool.map(one, delays))


def _reads_back_what_was_committed(home: Path, killed: Killed) -> dict[str, Any]:
    """``sessions show --json`` of a killed call: the unit in play at the kill heard exactly
    its committed played words and was cut by the crash; the call is unfinished."""
    played = _played(home, killed.session_id)
    open_rows = _query(
        home, "SELECT id FROM sessions WHERE id = ? AND outcome IS NULL", killed.session_id
    )
    assert open_rows, f"{killed}: the session was closed, not killed"
    shown = sandbox_cli(home, "sessions", "show", killed.session_id, "--json")
    assert shown.returncode == 0, shown.stderr
    report: dict[str, Any] = json.loads(shown.stdout)
    assert report["outcome"] == "unfinished" and report["ended_by"] == "unfinished"
    assert "process stopped" in report["end_detail"]
    finalized = {int(f["speech_id"]) for f in report["frames"] if f["type"] == "finalize"}
    for unit in report["units"]:
        if unit["speech_id"] in finalized:  # its Finalize says what was heard, and the fate
            # is the core's word for it: the script's units play out or are barged over.
            assert unit["fate"] in (Fate.PLAYED.value, Fate.BARGED.value), (killed, unit)
            continue
        words = [normalize(w) for sid, w in played if sid == unit["speech_id"]]
        assert [normalize(w) for w in unit["heard"].split()] == words, (killed, unit, played)
        # No Finalize stored: cut by the crash, unless an Interruption stored before the kill
        # had already sealed it (the core seals a barged unit at its Interruption, and the
        # kill may fall between that frame and the Finalize after it).
        barged = any(
            f["type"] == "interruption" and int(f["through_turn"]) >= unit["turn_id"]
            for f in report["frames"]
        )
        assert unit["fate"] == ("barged" if barged else "crashed"), (killed, unit)
        assert unit["words_heard"] == len(words), (killed, unit)
    return report


def _redrives(home: Path, killed: list[Killed]) -> None:
    """One ``sandbox replay ID ID… --brain builtin``: every killed call's report is read and
    re-driven (or refused in words when the kill came before the caller said anything)."""
    again = sandbox_cli(home, "replay", *(k.session_id for k in killed), "--brain", "builtin")
    log = home / "logs" / "sandbox.log"
    told = again.stderr + (log.read_text()[-4000:] if log.exists() else "")
    assert "Traceback" not in again.stderr and again.returncode in (0, 1, 2), told
    if len(killed) == 1:  # one session: its diff in full
        assert f"re-drove session {killed[0].session_id[:12]}" in again.stdout, told
        return
    lines = {line[:12]: line for line in again.stdout.splitlines()[1:]}
    for k in killed:
        result = lines[k.session_id[:12]].split(maxsplit=2)[2]
        assert (
            result.startswith(("same", "1 turn(s)", "2 turn(s)", "3 turn(s)"))
            or "has no caller side" in result
        ), (k, result)


def test_a_sim_call_killed_at_20_random_moments_reads_back_what_was_committed(
    home: Path, tmp_path: Path
) -> None:
    script = tmp_path / "caller.toml"
    script.write_text(SIM_SCRIPT)
    moments = random.Random(20261202)
    delays = [round(moments.uniform(0.0, 3.0), 3) for _ in range(20)]
    call = ["call", "--script", str(script), "--ms-per-word", SIM_MS_PER_WORD, "--idle-ms", "0"]
    killed = _kill_calls(home, call, bool, delays)
    with ThreadPoolExecutor(AT_ONCE) as pool:
        reports = list(pool.map(lambda k: _reads_back_what_was_committed(home, k), killed))
    crashed = [u for r in reports for u in r["units"] if u["fate"] == "crashed"]
    assert len(crashed) >= 10, "most kills should land while the bot speaks"
    # Every reader says so in words: the terminal, the Markdown export, the page.
    cut = next(
        r for r in reports if any(u["fate"] == "crashed" and u["interrupted"] for u in r["units"])
    )
    sid = cut["session_id"]
    shown = sandbox_cli(home, "sessions", "show", sid).stdout
    assert "(cut by a crash: the call's process stopped)" in shown, shown
    assert "outcome unfinished" in shown and "why: the call's process stopped" in shown
    markdown = sandbox_cli(home, "export", sid, "--md", "-").stdout
    assert "cut by a crash: the call's process stopped)" in markdown, markdown
    page = tmp_path / "call.html"
    assert sandbox_cli(home, "export", sid, "--html", str(page)).returncode == 0
    assert "cut by a crash: the call's process stopped" in page.read_text()
    # The replay's panes, at the end of the recording: the unit cut, and a closing note.
    recording = open_recording(sid)
    recording.replayer.seek(recording.duration_ms)
    view = recording.replayer.view
    cut_unit = next(u for u in view.units.values() if u.fate is Fate.CRASHED)
    assert unit_state(cut_unit) == "cut by a crash: the call's process stopped"
    assert "process stopped here" in str(view.entries[-1])
    _redrives(home, killed)


def _answering(played: list[tuple[int, str]]) -> bool:
    """The bot has begun its answer to the caller's first line (its second unit)."""
    return any(sid != played[0][0] for sid, _ in played) if played else False


# Slow, all five: the reader is the one the 20 sim kills run by default (CI's budget).
@pytest.mark.audio
@pytest.mark.slow
@pytest.mark.parametrize("kill", range(5))
def test_a_real_audio_call_killed_mid_answer_reads_back_what_was_committed(
    home: Path, tmp_path: Path, kill: int
) -> None:
    script = tmp_path / "caller.toml"
    script.write_text(AUDIO_SCRIPT)
    delay = round(random.Random(kill).uniform(0.0, 3.0), 3)
    call = ["call", "--audio", "real", "--speaker", "none", "--script", str(script)]
    (killed,) = _kill_calls(home, [*call, "--idle-ms", "0"], _answering, [delay])
    report = _reads_back_what_was_committed(home, killed)
    assert any(u["fate"] == "crashed" for u in report["units"]), report["units"]
    # The legs were written to the kill too: the replay opens them.
    assert (home / "audio" / killed.session_id / "mic.wav").stat().st_size > 44
    _redrives(home, [killed])


def test_the_first_word_after_a_cut_is_reported_as_played() -> None:
    """The simulated playout reports every word it plays, the first one after a cut
    included: a crashed unit reads back from those reports (a word cut mid-play used to
    leave the next unit's first word playing unreported)."""
    playout = SimPlayout(ms_per_word=40)
    playout.open_unit(1, 0, 0, 0)
    playout.speak(1, "one two three", 0)
    playout.advance(10)  # "one" is playing
    playout.cut(10)
    playout.open_unit(2, 0, 0, 20)
    playout.speak(2, "four five ", 20)
    words = [p.word for p in playout.advance(60) if isinstance(p, WordPlayed)]
    assert words == ["four", "five"]


@pytest.mark.slow  # the sim call's kills run by default: the same reader, the same writer
@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_the_typed_app_killed_mid_answer_reads_back_what_was_committed(home: Path) -> None:
    args = ["--typed", "--ms-per-word", "200", "--idle-ms", "0"]
    with sandbox_run(args, {HOME_ENV: str(home)}) as term:
        term.wait_for(lambda s: "greeting · played" in s, "the greeting", timeout_s=60)
        session_id = str(_query(home, "SELECT id FROM sessions")[0][0])
        term.keys("what are your prices", "Enter")
        until(lambda: _answering(_played(home, session_id)), "the answer to be heard")
        time.sleep(random.Random(27).uniform(0.3, 2.0))
        os.kill(term.app_pid(), signal.SIGKILL)
        term.wait_for(lambda s: "EXIT=137" in s, "the app to die")
    report = _reads_back_what_was_committed(home, Killed(session_id, 0.0))
    (answer,) = [u for u in report["units"] if u["fate"] == "crashed"]
    assert answer["heard"] and answer["interrupted"], answer


#: A process that records half a unit and dies without ending its session.
_DIES_MID_UNIT = """
import os, time
from sandbox.record.session_kinds import CallMode, Leg
from sandbox.record.writer import SessionWriter
from sandbox.wire import pb
from sandbox.wire.codec import encode
writer = SessionWriter("{sid}", brain_url="ws://brain", leg=Leg.DIRECT, mode=CallMode.SIM)
writer.frame(0, "in", encode(pb.SpeechStart(speech_id=1, turn_id=1)))
writer.frame(1, "in", encode(pb.SpeechChunk(speech_id=1, text="One two three four.")))
for at, word in enumerate(["One", "two"]):
    writer.event(10 + at, "word_played", {{"speech_id": 1, "word": word}})
time.sleep(0.6)  # committed
os._exit(0)
"""


def test_a_session_whose_recording_stopped_is_not_called_a_crash(home: Path) -> None:
    """A full disk stops the recording, not the call: what the unit heard after that is
    unknown, so it is left in play, and the end says the recording stopped."""
    sid = "0123abcd-0000-4000-8000-000000000000"
    died = subprocess.run(
        [sys.executable, "-c", _DIES_MID_UNIT.format(sid=sid)],
        env={**os.environ, HOME_ENV: str(home)},
        timeout=60,
    )
    assert died.returncode == 0
    with SessionStore() as store:
        (unit,) = session_report_json(store, store.find(sid))["units"]
    assert (unit["heard"], unit["fate"]) == ("One two", "crashed")
    db = sqlite3.connect(home / "sessions.db")
    with db:
        db.execute("UPDATE sessions SET recording_stopped = 'the disk is full'")
    db.close()
    with SessionStore() as store:
        report = session_report_json(store, store.find(sid))
    (unit,) = report["units"]
    assert (unit["heard"], unit["fate"]) == ("One two", "in play")
    assert report["end_detail"].startswith("the recording stopped before the call ended")
    recording = open_recording(sid)
    recording.replayer.seek(recording.duration_ms)
    assert recording.replayer.view.units[1].fate is None  # no crash note, nothing cut
