"""``sandbox audit`` through the CLI: a real-audio call with a barge-in (espeak caller,
Whisper, Piper, the PulseAudio virtual devices) agrees with its own speaker leg, and still
does with words after a whole unit's last one and hiss on its leg; the same session with a
heard text doctored in the store is flagged (exit 1), the doubt is kept with the session and
the exported page marks the unit, in Debian's chromium; a leg that stops before a whole
unit's end, and a cut unit's leg running on past its record, are flagged; a simulated
session is refused in words. The comparison's table: misheard, split and joined words,
made-up tails and repeats forgiven, a wrong cut not."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
import soundfile
from browser import browser, console_errors, screenshot
from caller_audio import espeak, join, silence, word_errors
from cli_rig import sandbox_cli
from selenium import webdriver
from selenium.webdriver.common.by import By

from sandbox.audio.resample import as_int16
from sandbox.audio.stt import Transcriber
from sandbox.judges.heard_truth import TOLERATED_WORDS_OFF, audit_words, words_off
from sandbox.paths import HOME_ENV
from sandbox.record import mulaw
from sandbox.record.store import SessionStore
from sandbox.record.stored_events import Audited, kind_of
from sandbox.replay.audit import (
    PIECE_GAP_MS,
    SILENT_LEVEL,
    audit_session,
    pieces,
    readings,
    until_silent,
)
from sandbox_bench.audit import audit_stored_sessions

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


def _report(home: Path, sid: str) -> dict[str, Any]:
    db = sqlite3.connect(home / "sessions.db")
    try:
        ((text,),) = db.execute("SELECT report FROM sessions WHERE id = ?", (sid,)).fetchall()
    finally:
        db.close()
    report: dict[str, Any] = json.loads(text)
    return report


def _put_report(home: Path, sid: str, report: dict[str, Any]) -> None:
    db = sqlite3.connect(home / "sessions.db")
    try:
        with db:
            db.execute("UPDATE sessions SET report = ? WHERE id = ?", (json.dumps(report), sid))
    finally:
        db.close()


def _events(home: Path, sid: str, kind: str) -> list[tuple[int, dict[str, Any]]]:
    db = sqlite3.connect(home / "sessions.db")
    try:
        rows = db.execute(
            "SELECT t_ms, data FROM events WHERE session_id = ? AND kind = ? ORDER BY seq",
            (sid, kind),
        ).fetchall()
    finally:
        db.close()
    return [(t_ms, json.loads(data)) for t_ms, data in rows]


def _played(home: Path, sid: str) -> dict[int, list[int]]:
    """Each unit's word play times (ms), in order."""
    times: dict[int, list[int]] = {}
    for t_ms, data in _events(home, sid, "word_played"):
        times.setdefault(data["speech_id"], []).append(t_ms)
    return times


def _clips(home: Path, sid: str) -> dict[int, tuple[int, int]]:
    """Each unit's clip (start and end ms) as the kept audit has it."""
    ((_, kept),) = _events(home, sid, kind_of(Audited))
    return {u["speech_id"]: (u["start_ms"], u["end_ms"]) for u in kept["units"]}


def _sound_end(leg: npt.NDArray[np.int16], after_ms: int) -> int:
    """Where ``leg`` (16 kHz) next goes silent for :data:`PIECE_GAP_MS` after ``after_ms``."""
    gap = PIECE_GAP_MS * 16
    loud = np.abs(leg[after_ms * 16 :].astype(np.float32) / 32768) > SILENT_LEVEL
    loud = np.concatenate([loud, np.zeros(gap, dtype=bool)])  # silent past the leg's end
    gaps = np.flatnonzero(np.convolve(loud, np.ones(gap), "valid") == 0)
    return after_ms + int(gaps[0]) // 16


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
    report = _report(home, sid)
    # The barge-in's unit claims every word it generated was heard: what a context that
    # kept unheard text would say.
    cut = next(u for u in report["units"] if u["interrupted"])
    assert len(cut["heard"].split()) < len(cut["generated"].split())
    cut["heard"] = cut["generated"]
    _put_report(home, sid, report)
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


def _read_leg(home: Path, sid: str) -> tuple[Path, npt.NDArray[np.int16]]:
    path = home / "audio" / sid / "speaker.wav"
    samples, rate = mulaw.read(path)
    assert rate == 16000
    return path, samples.copy()


def _write_leg(path: Path, samples: npt.NDArray[np.int16]) -> None:
    with path.open("wb") as out:
        mulaw.write_header(out, 16000, 0)
        mulaw.append(out, 0, samples)


@pytest.mark.audio
def test_words_after_a_whole_units_last_and_hiss_on_its_leg_still_agree(
    audio_home: Path, tmp_path: Path, transcriber: Transcriber
) -> None:
    """Whisper reading "Thank you." after a whole unit's last word (here spoken into the
    leg's silence there, as it makes one up from silence) costs the unit nothing, and hiss
    under the silent level after the last unit is cut off its clip."""
    home = tmp_path / "tail"
    shutil.copytree(audio_home, home)
    sid = _only_session(home)
    whole = [u for u in _report(home, sid)["units"] if u["heard"] == u["generated"]]
    assert len(whole) >= 2
    first, last = whole[0], whole[-1]
    played = _played(home, sid)
    path, leg = _read_leg(home, sid)
    # A whole unit's Finalize goes out once its audio is out, so its clip runs on to TAIL_MS
    # past the leg's last sound (the next unit waits for the caller's turn): room for them.
    ends = {u["speech_id"]: _sound_end(leg, played[u["speech_id"]][-1]) for u in whole}
    thanks = as_int16(espeak("Thank you.", wpm=280))
    assert len(thanks) < 400 * 16
    quiet = ends[last["speech_id"]] * 16
    hiss = np.random.default_rng(1).uniform(-0.003, 0.003, len(leg) - quiet + 3 * 16000)
    leg = np.concatenate([leg[:quiet], as_int16(hiss.astype(np.float32))])
    # Whether tiny.en writes words this close after a unit's last one turns on a few tens of
    # milliseconds of this recording's timing, so they go where it does (read in-process).
    for gap_ms in (50, 75, 100, 125):
        tailed_leg = leg.copy()
        at = (ends[first["speech_id"]] + gap_ms) * 16
        tailed_leg[at : at + len(thanks)] = thanks
        _write_leg(path, tailed_leg)
        with pytest.MonkeyPatch.context() as env:
            env.setenv(HOME_ENV, str(home))
            with SessionStore() as store:
                read = audit_session(store, store.find(sid), transcriber)
        heard = {u.speech_id: u.transcribed for u in read.units}[first["speech_id"]]
        if "thank you" in heard.lower():
            break
    else:
        pytest.fail("Whisper read no tail at any of four gaps: the test's premise is gone")

    code, audit, _ = _audit(home)
    assert code == 0, audit
    units = {u["speech_id"]: u for u in audit["units"]}
    tailed = units[first["speech_id"]]
    assert "thank you" in tailed["transcribed"].lower(), tailed
    # Read as plain words, the tail puts it two words or more off its heard text.
    assert len(audit_words(tailed["transcribed"])) >= len(audit_words(first["heard"])) + 2
    assert tailed["words_off"] <= TOLERATED_WORDS_OFF
    assert units[last["speech_id"]]["words_off"] <= TOLERATED_WORDS_OFF, units
    # The clip ends where the leg goes silent (a tenth of a second kept), not in the hiss.
    _, end_ms = _clips(home, sid)[last["speech_id"]]
    assert ends[last["speech_id"]] < end_ms <= ends[last["speech_id"]] + 100


@pytest.mark.audio
def test_a_leg_stopping_before_a_whole_units_end_or_running_past_a_cut_is_flagged(
    audio_home: Path, tmp_path: Path
) -> None:
    """The audit's purpose stands: a unit recorded whole whose leg stops five words early,
    and a cut unit recorded three words shorter than its leg holds, are both doubted."""
    home = tmp_path / "wrong"
    shutil.copytree(audio_home, home)
    sid = _only_session(home)
    report = _report(home, sid)
    whole = [u for u in report["units"] if u["heard"] == u["generated"]]
    last = whole[-1]
    cut = next(u for u in report["units"] if u["interrupted"])
    kept = cut["heard"].split()
    assert len(kept) >= 5
    cut["heard"] = " ".join(kept[:-3])
    _put_report(home, sid, report)
    path, leg = _read_leg(home, sid)
    leg[_played(home, sid)[last["speech_id"]][-5] * 16 :] = 0
    _write_leg(path, leg)

    code, audit, _ = _audit(home)
    assert code == 1
    units = {u["speech_id"]: u for u in audit["units"]}
    assert units[last["speech_id"]]["words_off"] >= 4, units
    assert units[cut["speech_id"]]["words_off"] > TOLERATED_WORDS_OFF, units
    assert units[whole[0]["speech_id"]]["words_off"] <= TOLERATED_WORDS_OFF, units


BARGE = "Sorry about the barge-in, I'll stop talking now."
BOOK = "Your first class is free. Would you like to book one?"
OPEN = "Our opening hours are on your screen now. We're open seven to eight."


@pytest.mark.parametrize(
    ("heard", "generated", "transcribed", "off"),
    [
        # Played whole: a word misheard, split or joined is Whisper's, free; words after the
        # last one are Whisper's own, free.
        (BARGE, BARGE, "Sorry about the bargion, I'll stop talking now. Okay.", 0),
        (BARGE, BARGE, "Sorry about the barge in. I'll stop talking now.", 0),
        (BARGE, BARGE, "Sorry about the bargein, I'll stop talking now. Bye.", 0),
        ("Ice cream at the check-in?", "Ice cream at the check-in?", "Icecream at the checkin?", 0),
        (BOOK, BOOK, "Your first class is free. Would you like to book one? Thank you.", 0),
        (BOOK, BOOK, "Your first class is free. Would you like to book one? Book one?", 0),
        (BOOK, BOOK, "Your first class is free. Would you like to book one? Okay. Bye.", 0),
        (BOOK, BOOK, "Your first class is for you. Would you like to book one?", 0),
        # ... but a clip that stops early is off by the words it lacks, a made-up tail where
        # they should be is no stand-in, and unalike words at the end read as missing ones.
        (BOOK, BOOK, "Your first class is free. Would you like", 3),
        (BOOK, BOOK, "Your first class is free. Would you like to. Thank you.", 2),
        (OPEN, OPEN, "Our opening hours are on your screen now. We're open nine eight.", 3),
        # Cut: the word at the cut counts either way, a split word as one, and more is off;
        # a made-up word after the cut is no word of the unit.
        ("Our opening hours are on", OPEN, "Our opening hours are on your", 0),
        ("Our opening hours are on", OPEN, "Our opening hours are on. Okay.", 0),
        ("Our opening hours are on", OPEN, "Our opening hours are on your screen now.", 2),
        ("Sorry about the barge-in", BARGE, "Sorry about the bargion", 0),
        # Nothing heard: the unit's own words in its clip are off, made-up ones are not.
        ("", BOOK, "Okay. Thank you.", 0),
        ("", BOOK, "Your first class is free.", 4),
    ],
)
def test_the_comparison_forgives_whispers_errors_not_a_wrong_cut(
    heard: str, generated: str, transcribed: str, off: int
) -> None:
    assert words_off(heard, generated, transcribed) == off


def test_a_clip_ends_where_its_window_goes_silent_for_good() -> None:
    rate = 16000
    tone = (0.3 * np.cos(np.arange(rate) / 3.0)).astype(np.float32)  # one second, loud at 0
    quiet = np.zeros(rate, dtype=np.float32)
    hiss = np.random.default_rng(0).uniform(-0.003, 0.003, rate).astype(np.float32)
    loud = np.random.default_rng(0).normal(0, 0.01, rate).astype(np.float32)
    pad = rate // 10  # the little silence a piece keeps
    assert len(until_silent(np.concatenate([tone, quiet]))) == rate + pad
    assert len(until_silent(np.concatenate([tone, hiss]))) == rate + pad
    # Sound after a silence is kept, and so is noise over the silent level.
    assert len(until_silent(np.concatenate([tone, quiet, tone, quiet]))) == 3 * rate + pad
    assert len(until_silent(np.concatenate([tone, loud]))) == 2 * rate
    assert len(until_silent(quiet)) == 0


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
