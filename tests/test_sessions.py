"""The session store: recorded while the call runs, read back whole, after a crash, on a full
disk; and the `sandbox sessions` verbs with ids named by prefix."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from session_rig import SCRIPT, recorded_call
from small_disk import fill
from waiting import until

from sandbox.audio.stt import Transcriber
from sandbox.brains.echo import Echo
from sandbox.caller.script import parse_script
from sandbox.paths import HOME_ENV
from sandbox.record.export import session_report, session_report_json
from sandbox.record.leg_files import leg_path
from sandbox.record.legs import read_leg
from sandbox.record.markdown import session_markdown
from sandbox.record.report import report_from_json, report_json
from sandbox.record.session_kinds import CallMode, Leg
from sandbox.record.store import SCHEMA_VERSION, SessionStore, StoreError, connect, store_path
from sandbox.record.stored_call import frame_record
from sandbox.record.writer import SessionEnd, SessionWriter
from sandbox.sdk import serve
from sandbox.wire.tokens import load_or_create_keys


async def test_a_call_reads_back_frame_for_frame_and_event_for_event(home: Path) -> None:
    host = await recorded_call()
    with SessionStore() as store:
        (row,) = store.sessions()
        assert row.id == host.core.session_id and row.status == "completed"
        assert (row.mode, row.leg, row.caller_turns, row.units) == ("sim", "direct", 2, 3)
        assert row.cuts == 1 and row.errors == 0 and row.duration_ms and row.duration_ms > 0
        frames = store.frames(row.id)
        assert [frame_record(f) for f in frames] == host.recorder.frames
        events = store.events(row.id)
        report = session_report(store, row)
    words = [e for e in events if e.kind == "word_played"]
    assert len(words) == host.words_played > 0
    assert {"caller_shown", "cut_playout", "state_changed", "call_ended"} <= {
        e.kind for e in events
    }
    assert report == host.recorder.report(host.core)  # the export is the report, unchanged
    assert os.stat(store_path()).st_mode & 0o777 == 0o600  # what a caller said is private


def test_a_store_from_a_newer_build_is_refused_in_words(home: Path) -> None:
    db = connect()
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match="written by a newer sandbox"):
        SessionStore()


def test_a_file_that_is_not_a_store_is_an_error_in_words(home: Path) -> None:
    store_path().parent.mkdir(parents=True)
    store_path().write_bytes(b"not a database at all, " * 100)
    with pytest.raises(StoreError, match="cannot be read"):
        SessionStore()


async def test_two_calls_recording_at_once_both_land(home: Path) -> None:
    first, second = await asyncio.gather(recorded_call(), recorded_call())
    with SessionStore() as store:
        ids = {row.id for row in store.sessions() if row.status == "completed"}
    assert ids == {first.core.session_id, second.core.session_id}


# --------------------------------------------------------------- a crash


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sandbox.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, HOME_ENV: str(home)},
        timeout=120,
    )


def test_kill_9_mid_call_leaves_an_unfinished_session_that_reads_back(
    home: Path, tmp_path: Path
) -> None:
    script = tmp_path / "long.toml"
    script.write_text(
        'ms_per_word = 20\n[[step]]\nsay = "What are your opening hours?"\n'
        "[[step]]\nsilence_ms = 60000\n"
    )
    call = subprocess.Popen(
        [sys.executable, "-m", "sandbox.cli", "call", "--script", str(script), "--idle-ms", "0"],
        env={**os.environ, HOME_ENV: str(home)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        until(lambda: _finalizes(home) >= 2, "the answer to the caller to be recorded")
    finally:
        call.send_signal(signal.SIGKILL)
        call.wait(10)
    with SessionStore() as store:
        (row,) = store.sessions()
        assert row.status == "unfinished"
        report = session_report_json(store, row)
    assert report["outcome"] == "unfinished"
    assert report["caller_turns"] == ["What are your opening hours?"]
    assert [u["speech_id"] for u in report["units"]] == [1, 2]
    assert report["units"][1]["heard"] and report["units"][1]["fate"] == "played"
    listed = _cli(home, "sessions", "list")
    assert row.id[:12] in listed.stdout and "unfinished" in listed.stdout


def _finalizes(home: Path) -> int:
    path = home / "sessions.db"
    if not path.exists():
        return 0
    try:
        with SessionStore(path) as store:
            rows = store.sessions()
            frames = store.frames(rows[0].id) if rows else []
    except (StoreError, sqlite3.Error):
        return 0
    return sum(1 for f in frames if frame_record(f).type == "finalize")


# ------------------------------------------------------------ a full disk


async def test_a_full_disk_stops_recording_says_so_and_the_call_goes_on(
    small_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(HOME_ENV, str(small_disk))
    told: list[str] = []
    filler = small_disk / "filler"

    def stopped(words: str) -> None:
        told.append(words)
        filler.unlink()  # the user frees some room before the call ends

    original = SessionWriter.__init__

    def listening(self: SessionWriter, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        self.on_failure = stopped
        fill(small_disk)  # leave the store room for its start only

    monkeypatch.setattr(SessionWriter, "__init__", listening)
    long_talk = SCRIPT + "".join(
        f'[[step]]\nsay = "Tell me about your prices please, question {i}"\n' for i in range(8)
    )
    host = await recorded_call(long_talk)
    assert host.core.ended is not None and host.core.ended.outcome == "completed"
    assert told == [told[0]] and "disk is full" in told[0] and "the call goes on" in told[0]
    with SessionStore() as store:  # consistent and readable: what was committed is there
        (row,) = store.sessions()
        assert row.id == host.core.session_id and row.status == "completed"
        assert row.recording_stopped == told[0]  # the index says the recording is partial
        recorded = store.frames(row.id)
    assert len(recorded) < len(host.recorder.frames)  # the frames that fit, no more


# ------------------------------------------------------------- the verbs


async def test_the_verbs_name_sessions_by_prefix(home: Path, tmp_path: Path) -> None:
    host = await recorded_call()
    sid = host.core.session_id
    listed = _cli(home, "sessions", "list", "--json")
    assert [json.loads(line)["id"] for line in listed.stdout.splitlines()] == [sid]
    shown = _cli(home, "sessions", "show", sid[:5])
    assert shown.returncode == 0 and "caller  [turn 2] What are your opening hours?" in shown.stdout
    assert "bot     [unit 2, turn 2] 'Our opening'" in shown.stdout  # barged as it streamed
    out = tmp_path / "export.json"
    assert _cli(home, "sessions", "export", sid[:8], "--json", str(out)).returncode == 0
    assert json.loads(out.read_text()) == report_json(host.recorder.report(host.core))
    missing = _cli(home, "sessions", "show", "zzz")
    assert missing.returncode == 1 and "no session 'zzz'" in missing.stderr
    assert "Traceback" not in missing.stderr
    assert "no session" in _cli(home, "sessions", "rm", "zzz").stderr
    assert _cli(home, "sessions", "prune", "--older-than", "1d").stdout.startswith("removed 0")
    assert _cli(home, "sessions", "rm", sid[:6]).returncode == 0
    assert "no sessions yet" in _cli(home, "sessions", "list").stdout


async def test_a_session_exports_as_markdown_heard_truth_first(home: Path, tmp_path: Path) -> None:
    server = await serve(
        Echo, host="127.0.0.1", port=0, public_key_pem=load_or_create_keys().public_pem
    )
    try:  # the echo of the first question is cut after two heard words
        host = await recorded_call(brain_url=server.url())
    finally:
        await server.close()
    sid = host.core.session_id
    out = tmp_path / "call.md"
    assert _cli(home, "sessions", "export", sid[:8], "--md", str(out)).returncode == 0
    text = out.read_text()
    cut = next(u for u in host.core.units if u.heard != u.generated)
    heard, unheard = cut.heard, cut.generated[len(cut.heard) :].strip()
    total = len(cut.generated.split())
    assert "- **Caller** (turn 2): What are your opening hours?" in text
    assert f"{heard} ~~{unheard}~~ (✂ 2 of {total} words heard, barged)" in text
    assert "✋ the caller barged in: turns up to 2 are dead" in text
    assert f"would have stored {total - 2} more words the caller never heard" in text
    printed = _cli(home, "sessions", "export", sid[:8], "--md", "-")
    assert printed.stdout == text
    with SessionStore() as store:
        row = store.find(sid)
    report = report_json(host.recorder.report(host.core))
    report["units"][0]["generated"] = report["units"][0]["heard"] = "*not bold* | [a](b) ~x~"
    assert r"\*not bold\* \| \[a\](b) \~x\~" in session_markdown(row, report_from_json(report))


def test_an_ambiguous_prefix_names_the_candidates(home: Path) -> None:
    for sid in ("aaaa1111-0000-4000-8000-000000000000", "aaaa2222-0000-4000-8000-000000000000"):
        writer = SessionWriter(sid, brain_url="ws://brain", leg=Leg.DIRECT, mode=CallMode.SIM)
        writer.frame(0, "out", b"\x0a\x00")
        writer.finish(SessionEnd("completed", "caller", "", 10, 1, 0, 0, 0, {"frames": []}))
    with SessionStore() as store:
        with pytest.raises(StoreError, match=r"'aaaa' names 2 sessions \(aaaa1111-000, aaaa2222"):
            store.find("aaaa")
        assert store.find("AAAA2").id.startswith("aaaa2222")
        with pytest.raises(StoreError, match="no session '%'"):
            store.find("%")  # a LIKE wildcard is taken literally, not as "any"
        assert len(store.frames("aaaa1111-0000-4000-8000-000000000000")) == 1
    result = _cli(home, "sessions", "show", "")  # nothing named: refused as it is parsed
    assert result.returncode == 2 and "argument id: must not be empty" in result.stderr


# ------------------------------------------------------- the audio legs


# Its kind in CI: test_page's real-audio call (espeak in the microphone, a barge-in) becomes
# a page whose audio is the call's legs; test_replay records one and plays its legs.
@pytest.mark.slow
@pytest.mark.audio
def test_a_real_audio_call_records_both_legs_on_the_calls_clock(
    home: Path, tmp_path: Path, transcriber: Transcriber
) -> None:
    """espeak into the microphone path, Whisper, Piper through the paced playout clock: both
    legs cover the call, and the speaker leg holds what the bot said."""
    script = tmp_path / "s.toml"
    script.write_text('[[step]]\nsay = "What are your opening hours?"\n')
    result = _cli(
        home, "call", "--audio", "real", "--speaker", "none", "--script", str(script),
        "--idle-ms", "0",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    with SessionStore() as store:
        (row,) = store.sessions()
        events = store.events(row.id)
    assert row.mode == "audio" and row.duration_ms is not None
    kinds = {e.kind for e in events}
    # The endpointing steps and the listener's decisions are on the record, on the same clock.
    assert {"caller_speaking", "voice_paused", "guess", "turn_closed", "turn_committed"} <= kinds
    (closed,) = [e.data for e in events if e.kind == "turn_closed"]
    assert closed["reason"] in ("final", "confident", "silence")
    assert any(e.data["text"] for e in events if e.kind == "guess")
    words = [e.data for e in events if e.kind == "word_played"]
    assert words and all(w["index"] is not None and w["sample"] is not None for w in words)
    out = tmp_path / "legs"
    exported = _cli(home, "sessions", "export", row.id[:8], "--wav", str(out))
    assert exported.returncode == 0, exported.stderr
    for leg in ("mic", "speaker"):  # as kept (μ-law) and as exported (PCM), the same length
        samples, rate = read_leg(leg_path(row.id, leg))
        assert abs(len(samples) * 1000 / rate - row.duration_ms) <= 100, leg
        assert len(_pcm(out / f"{leg}.wav")[0]) == len(samples)
    mix, _ = _pcm(out / "mix.wav")
    assert len(mix) > 0
    speaker, rate = _pcm(out / "speaker.wav")
    heard = transcriber.transcribe(
        np.interp(
            np.arange(len(speaker) * 16000 // rate) * (rate / 16000),
            np.arange(len(speaker)),
            speaker.astype(np.float32) / 32768,
        ).astype(np.float32)
    )
    assert "harbour" in heard.text.lower() or "studio" in heard.text.lower()


def _pcm(path: Path) -> tuple[np.ndarray[Any, np.dtype[np.int16]], int]:
    with wave.open(str(path), "rb") as wav:
        return np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16), wav.getframerate()


def test_a_sim_session_has_no_legs_and_says_so(home: Path) -> None:
    asyncio.run(recorded_call())
    with SessionStore() as store:
        (row,) = store.sessions()
    result = _cli(home, "sessions", "export", row.id[:8], "--wav", str(home / "out"))
    assert result.returncode == 1 and "was a sim call: it has no audio legs" in result.stderr


def test_the_sessions_bench_reports_its_figures_and_targets(home: Path) -> None:
    result = _cli(home, "bench", "--sessions", "--minutes", "0.5", "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    for key in (
        "replay_open_ms",
        "recording_cpu_percent",
        "disk_mb_per_minute",
        "html_mb_per_10_minutes",
    ):
        assert isinstance(figures[key], float | int) and figures[key] > 0
        assert key in figures["targets"]
    assert figures["moments"] > 0 and "opened for replay" in result.stderr
    assert not list(home.glob("audio/*"))  # measured in a store of its own


def test_a_session_scripts_back_to_the_script_that_made_it(home: Path, tmp_path: Path) -> None:
    """script → call → session → script gives the same steps."""
    original = (
        "ms_per_word = 40\n"
        '[[step]]\nsay = "What are your opening hours?"\n'
        '[[step]]\nbackchannel = "mm-hmm"\nafter_words = 2\n'
        '[[step]]\nbarge_in = "And on Sunday?"\nafter_words = 5\n'
        '[[step]]\ntype = "Thanks, that is all."\n'
        '[[step]]\nrtvi = { type = "ui-event", data = { event = "tap", target = "pricing" } }\n'
    )
    path = tmp_path / "call.toml"
    path.write_text(original)
    assert _cli(home, "call", "--script", str(path), "--idle-ms", "0").returncode == 0
    with SessionStore() as store:
        (row,) = store.sessions()
    scripted = _cli(home, "sessions", "script", row.id[:8])
    assert scripted.returncode == 0, scripted.stderr
    again, before = parse_script(scripted.stdout), parse_script(original)
    assert again.steps == before.steps
    assert again.ms_per_word == 40
    # And the script plays: the same caller side, once more.
    path.write_text(scripted.stdout)
    assert _cli(home, "call", "--script", str(path), "--idle-ms", "0").returncode == 0


def test_a_store_from_an_older_build_is_migrated_and_keeps_its_sessions(home: Path) -> None:
    """The migration path: a layout-1 store (before re-drives) opens as layout 3."""
    from sandbox.record.store import _MIGRATIONS

    store_path().parent.mkdir(parents=True)
    old = sqlite3.connect(store_path())
    old.executescript(_MIGRATIONS[0] + "PRAGMA user_version = 1;")
    old.execute(
        "INSERT INTO sessions (id, started_at, brain_url, leg, mode, app_version, wire_version)"
        " VALUES ('0ld00000-0000-4000-8000-000000000000', 1.0, 'ws://b', 'direct', 'sim', "
        "'0.1.0', 3)"
    )
    old.commit()
    old.close()
    with SessionStore() as store:
        (row,) = store.sessions()
        assert row.id.startswith("0ld") and row.redrive_of is None and row.status == "unfinished"
        assert row.origin is None  # a call a person made, shown by `sessions list`
    version = sqlite3.connect(store_path()).execute("PRAGMA user_version").fetchone()[0]
    assert version == SCHEMA_VERSION == 3


_OPEN_AT = """
import sys, time
from pathlib import Path
from sandbox.record.store import SessionStore
start = float(sys.argv[2])
time.sleep(max(0.0, start - time.time()))
with SessionStore(Path(sys.argv[1])) as store:
    print(len(store.sessions()))
"""


def test_processes_opening_a_fresh_store_at_once_all_open_it(tmp_path: Path) -> None:
    """A call starting while `sessions list` runs on a new home: both read layout 0, and the
    one that migrated second used to fail ('table sessions already exists'), so its call
    went unrecorded. Four processes, five fresh stores, all open."""
    for round_ in range(5):
        path = tmp_path / f"home{round_}" / "sessions.db"
        start = f"{time.time() + 1.5:.3f}"  # after every interpreter has imported the store
        openers = [
            subprocess.Popen(
                [sys.executable, "-c", _OPEN_AT, str(path), start],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(4)
        ]
        results = [opener.communicate(timeout=60) for opener in openers]
        assert [(out, err) for out, err in results] == [("0\n", "")] * 4
        assert [opener.returncode for opener in openers] == [0] * 4
        version = sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0]
        assert version == SCHEMA_VERSION


def test_a_value_the_store_refuses_stops_the_record_in_words_and_the_end_is_kept(
    home: Path,
) -> None:
    """SQLite takes 64-bit integers; a time past that raised OverflowError in the writer's
    thread, which died: later frames piled up in memory and the end was never written."""
    sid = "bbbb1111-0000-4000-8000-000000000000"
    told: list[str] = []
    writer = SessionWriter(
        sid, brain_url="ws://brain", leg=Leg.DIRECT, mode=CallMode.SIM, on_failure=told.append
    )
    writer.frame(0, "out", b"\x0a\x00")
    writer.event(2**63, "word_played", {"speech_id": 1})
    writer.frame(5, "out", b"\x0a\x00")
    writer.finish(SessionEnd("completed", "caller", "", 10, 1, 0, 0, 0, {"frames": []}))
    assert told and told[0].startswith("recording stopped (") and "the call goes on" in told[0]
    with SessionStore() as store:
        row = store.find(sid)
        assert row.outcome == "completed" and row.recording_stopped == told[0]
