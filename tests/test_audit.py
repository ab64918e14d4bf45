"""``sandbox audit`` through the CLI: a real-audio call with a barge-in (espeak caller,
Whisper, Piper, the PulseAudio virtual devices) agrees with its own speaker leg; the same
session with a heard text doctored in the store is flagged (exit 1), the doubt is kept with
the session and the exported page marks the unit, in Debian's chromium; a simulated
session is refused in words."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile
from browser import browser, console_errors, screenshot
from caller_audio import espeak, join, silence, word_errors
from cli_rig import sandbox_cli
from selenium import webdriver
from selenium.webdriver.common.by import By

from sandbox.audio.stt import Transcriber
from sandbox.bench.audit import audit_stored_sessions
from sandbox.judges.heard_truth import TOLERATED_WORDS_OFF
from sandbox.paths import HOME_ENV
from sandbox.replay.audit import pieces, readings

__all__ = ["browser"]  # the fixture, used by name

SCRIPT = """
[[step]]
say = "What are your opening hours?"
[[step]]
barge_in = "Sorry, how much is a class?"
after_words = 8
"""


def _only_session(home: Path) -> str:
    db = sqlite3.connect(home / "sessions.db")
    try:
        ((sid,),) = db.execute("SELECT id FROM sessions").fetchall()
    finally:
        db.close()
    return str(sid)


@pytest.fixture(scope="module")
def audio_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder holding one real-audio call with a barge-in."""
    home = tmp_path_factory.mktemp("home")
    script = home / "call.toml"
    script.write_text(SCRIPT)
    called = sandbox_cli(
        home, "call", "--audio", "real", "--speaker", "none", "--script", str(script), timeout=300
    )
    assert called.returncode == 0, called.stderr
    return home


def _audit(home: Path) -> tuple[int, dict[str, Any], str]:
    done = sandbox_cli(home, "audit", _only_session(home)[:8], "--json")
    assert "Traceback" not in done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


@pytest.mark.audio
def test_a_real_call_with_a_barge_in_agrees_with_its_speaker_leg(audio_home: Path) -> None:
    code, audit, stderr = _audit(audio_home)
    assert code == 0, audit
    units = audit["units"]
    assert len(units) == audit["audit_units"] >= 3
    assert all(u["words_off"] <= TOLERATED_WORDS_OFF for u in units), units
    assert audit["audit_max_words_off"] <= TOLERATED_WORDS_OFF
    assert 0.0 <= audit["audit_exact_fraction"] <= 1.0
    assert all(u["transcribed"] for u in units if u["heard"])  # each unit's audio was found
    assert "Speech recognizer ready" in stderr and f"unit {len(units)} of {len(units)}" in stderr
    # The speaker leg is the call's length: a stall of the paced playout no longer pushes it
    # (and every unit after it) late.
    sid = _only_session(audio_home)
    db = sqlite3.connect(audio_home / "sessions.db")
    try:
        ((duration_ms,),) = db.execute(
            "SELECT duration_ms FROM sessions WHERE id = ?", (sid,)
        ).fetchall()
    finally:
        db.close()
    with soundfile.SoundFile(audio_home / "audio" / sid / "speaker.wav") as leg:
        assert abs(leg.frames / leg.samplerate * 1000 - duration_ms) < 300


@pytest.mark.audio
def test_a_doctored_heard_text_is_flagged_and_marked_on_the_page(
    audio_home: Path, tmp_path: Path, browser: webdriver.Chrome
) -> None:
    home = tmp_path / "doctored"
    shutil.copytree(audio_home, home)
    sid = _only_session(home)
    db = sqlite3.connect(home / "sessions.db")
    try:
        ((text,),) = db.execute("SELECT report FROM sessions WHERE id = ?", (sid,)).fetchall()
        report = json.loads(text)
        # The barge-in's unit claims every word it generated was heard: what a context that
        # kept unheard text would say.
        cut = next(u for u in report["units"] if u["interrupted"])
        assert len(cut["heard"].split()) < len(cut["generated"].split())
        cut["heard"] = cut["generated"]
        with db:
            db.execute("UPDATE sessions SET report = ? WHERE id = ?", (json.dumps(report), sid))
    finally:
        db.close()
    code, audit, _ = _audit(home)
    assert code == 1
    flagged = {u["speech_id"]: u for u in audit["units"]}[cut["speech_id"]]
    assert flagged["words_off"] > TOLERATED_WORDS_OFF
    assert flagged["verdict"] == f"off by {flagged['words_off']} words"
    plain = sandbox_cli(home, "audit", sid[:8])
    assert plain.returncode == 1 and f"unit {cut['speech_id']}: off by" in plain.stdout
    # The bench's audit of a stage's sessions names the doubted unit and what Whisper heard.
    lines: list[str] = []
    with pytest.MonkeyPatch.context() as env:
        env.setenv(HOME_ENV, str(home))
        bench = audit_stored_sessions(lines.append)
    assert bench["audit_doubted"] == [
        {"heard": cut["generated"], "transcribed": flagged["transcribed"],
         "words_off": flagged["words_off"]}
    ]  # fmt: skip
    assert f"    unit {cut['speech_id']}: recorded '{cut['generated']}'" in "\n".join(lines)

    page = home / "call.html"
    assert sandbox_cli(home, "export", sid[:8], "--html", str(page)).returncode == 0
    browser.get(page.as_uri())
    marks = browser.find_elements(By.CSS_SELECTOR, ".entry.bot .doubt")
    assert len(marks) == 1
    row = marks[0].find_element(By.XPATH, "..")
    assert row.get_attribute("data-speech") == str(cut["speech_id"])
    assert marks[0].text == f"⚠ audit: {flagged['verdict']}"
    assert marks[0].get_attribute("title") == f"the speaker leg says: {flagged['transcribed']}"
    assert console_errors(browser) == []
    screenshot(browser, "page-audit-doubt")


def test_a_simulated_session_is_refused_in_words(tmp_path: Path) -> None:
    script = tmp_path / "call.toml"
    script.write_text('[[step]]\nsay = "What are your opening hours?"\n')
    assert sandbox_cli(tmp_path, "call", "--script", str(script), "--idle-ms", "0").returncode == 0
    done = sandbox_cli(tmp_path, "audit", _only_session(tmp_path)[:8])
    assert done.returncode == 1
    assert "audit needs a real-audio session's speaker leg; this one ran with simulated" in (
        done.stderr
    )
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_a_clip_is_read_in_pieces_split_at_long_silences() -> None:
    rate = 16000
    tone = (0.3 * np.cos(np.arange(rate) / 3.0)).astype(np.float32)  # one second, loud at 0
    quiet = np.zeros(rate * 6 // 10, dtype=np.float32)  # 600 ms: a backchannel's pause
    short = np.zeros(rate // 5, dtype=np.float32)  # 200 ms: a word's gap
    pad = rate // 10
    assert pieces(np.concatenate([tone, quiet, tone]), rate) == [
        slice(0, rate + pad),
        slice(rate + len(quiet) - pad, 2 * rate + len(quiet)),
    ]
    assert pieces(np.concatenate([quiet, tone, short, tone]), rate) == [
        slice(len(quiet) - pad, len(quiet) + 2 * rate + len(short))
    ]
    assert pieces(quiet, rate) == []


def test_a_unit_paused_in_the_middle_is_read_twice(transcriber: Transcriber) -> None:
    """A unit the bot paused between its sentences, as the speaker leg holds it: read whole,
    and in pieces, which hold both sentences."""
    first, second = "Sure, I can help you with that right away.", "Let me pull up your order."
    clip = join(silence(200), espeak(first), silence(700), espeak(second), silence(300))
    whole, in_pieces = readings(transcriber, clip)
    assert whole == transcriber.transcribe(clip).text
    assert word_errors(f"{first} {second}", in_pieces) <= 2, in_pieces
    assert readings(transcriber, join(silence(200), espeak(first), silence(300))) == [
        transcriber.transcribe(join(silence(200), espeak(first), silence(300))).text
    ]  # no long silence: read once, whole
    assert readings(transcriber, silence(500)) == [""]
