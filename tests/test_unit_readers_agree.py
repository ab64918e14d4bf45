"""Every reader of a stored call takes its units from the core's own record, so they agree.

One real call (a unit taken back, a unit the caller talks over, the rest played out) is read
four ways — the report the live call wrote, the report rebuilt from what it recorded, the
replay's timeline at its end, the page's data — finished, then killed in the middle of a
unit's speech, then as an older build stored it (without the core's records, which are
then worked out from its frames in one place): every way gives every unit the same fate,
heard text and "interrupted"; and the same caller lines, first-chunk timings and errors
(the core's records of its turns, read through one fold: :mod:`sandbox.call.ledger`).
The transcript of every report (the live one, the stored, the rebuilt) says what the core
decided, in its order (caller lines, idle nudges, Interruptions, units), from the report's
conversation at the moments the core decided them, not the frames' stamps.
"""

from __future__ import annotations

import json
import sqlite3
import typing
from pathlib import Path
from typing import Any

from cli_rig import sandbox_cli

from sandbox.call.effects import CallerShown
from sandbox.call.ledger import Ledger
from sandbox.call.turn_records import TurnKind, TurnRecord, TurnSent
from sandbox.call.unit_records import TextKept, UnitOpened, UnitSealed, WatermarkRaised
from sandbox.record.export import session_records, session_report
from sandbox.record.legacy_report import older_build_report
from sandbox.record.page.data import page_data
from sandbox.record.report import (
    CallerSaid,
    IdleSent,
    InterruptionSent,
    Report,
    UnitStarted,
    report_from_json,
)
from sandbox.record.store import SessionStore
from sandbox.record.stored_call import StoredCall
from sandbox.record.stored_events import kind_of
from sandbox.record.transcript import (
    CRASHED_WORDS,
    BotUnit,
    CallerLine,
    FloorTaken,
    IdleNudge,
    transcript,
)
from sandbox.record.unit_log import report_conversation, with_unit_records
from sandbox.replay.diff import compare
from sandbox.replay.source import open_recording

# The guardrail brain takes its card answer back (cancelled); the caller talks over the
# balance answer (barged); the greeting plays out.
SCRIPT = """\
ms_per_word = 20
[[step]]
say = "What is my card number?"
[[step]]
say = "And my balance?"
[[step]]
barge_in = "Stop there"
after_words = 2
[[step]]
silence_ms = 700
"""
#: The caller's silence at the end lasts two idle waits (nudges of levels 1 and 2); a pause
#: between steps may last one.
IDLE_MS = "300"

#: A unit as a reader has it: fate, heard text, interrupted.
Seen = dict[int, tuple[str, str, bool]]


def _folded(call: StoredCall) -> Report:
    """The report rebuilt as for a session an older build stored: folded from the core's
    records, not fed again."""
    frames = [f.as_report() for f in call.frames]
    return older_build_report(call.head, call.records, frames, call.unkept, call.unfinished())


def _report_units(report: Any) -> Seen:
    return {u.speech_id: (u.fate.value, u.heard, u.interrupted) for u in report.units}


def _four_ways(store: SessionStore, session_id: str, *, records: bool = True) -> dict[str, Seen]:
    """The units as the rebuilt report, the replay, the page and the session's own report have
    them (the page keeps heard words, not text: its count is held to the heard text's).
    ``records``: whether the session holds the core's records (else an older build's)."""
    row = store.find(session_id)
    call = StoredCall.load(store, row)
    assert any(e.kind == kind_of(UnitSealed) for e in call.events) is records
    rebuilt = _folded(call)
    replay = open_recording(session_id, store).replayer
    replay.seek(replay.duration_ms)
    report = session_report(store, row)
    page = {
        e["speech_id"]: e
        for e in page_data(StoredCall.load(store, row))["entries"]
        if e["kind"] == "bot"
    }
    for unit in report.units:
        shown = page[unit.speech_id]
        assert shown["heard"] == len(unit.heard.split()), (shown, unit)
        assert shown["words"] == unit.generated.split()
    return {
        "rebuilt": _report_units(rebuilt),
        "fed again": _report_units(call.rebuilt),
        "replay": {
            u.speech_id: (u.reported_fate.value, u.heard, u.interrupted)
            for u in replay.view.units.values()
        },
        "page": {
            sid: (
                "crashed" if shown["fate"] == CRASHED_WORDS else shown["fate"],
                report_unit.heard,
                report_unit.interrupted,
            )
            for report_unit in report.units
            for sid, shown in [(report_unit.speech_id, page[report_unit.speech_id])]
        },
        "session report": _report_units(report),
    }


#: A call's turns as a reader has them: caller lines, each caller turn's first-chunk ms
#: (from its UserMessage), and the errors (direction, code).
Lines = tuple[tuple[str, ...], dict[int, int], list[tuple[str, str]]]


def _live_lines(live: dict[str, Any]) -> Lines:
    """The turns as the live call's report file has them (its waterfalls, the core's marks)."""
    took = {
        t["turn_id"]: t["timeline"]["first_chunk"] - t["timeline"]["user_message"]
        for t in live.get("turns", [])
        if "first_chunk" in t["timeline"]
    }
    errors = [(e["dir"], e["code"]) for e in live["errors"]]
    return tuple(live["caller_turns"]), took, errors


def _known(took: dict[int, int | None]) -> dict[int, int]:
    return {turn: ms for turn, ms in took.items() if ms is not None}


def _lines_every_way(store: SessionStore, session_id: str) -> dict[str, Lines]:
    """The turns as the rebuilt report and the stored records, the re-drive's diff of the
    session's report, the replay and the page have them."""
    row = store.find(session_id)
    call = StoredCall.load(store, row)
    rebuilt = _folded(call)
    turns = Ledger()
    for event in with_unit_records(call.frames, call.events):
        turns.apply(event.t_ms, event.value)
    caller = [s.turn_id for s in turns.sent if s.kind is TurnKind.CALLER]
    took = {t: ms for t in caller if (ms := turns.first_chunk_ms(t)) is not None}
    errors = [(str(e.dir), e.code) for e in rebuilt.errors]
    report = session_report(store, row)
    diff = compare(report, report, [], ignore_text=False).turns[1:]  # after the greeting
    diff_took = {t: d.first_chunk_ms_before for t, d in zip(caller, diff, strict=True)}
    replay = open_recording(session_id, store).replayer
    replay.seek(replay.duration_ms)
    said = [e for e in replay.view.entries if isinstance(e, CallerShown) and e.turn_id]
    page = page_data(StoredCall.load(store, row))
    page_lines = tuple(e["text"] for e in page["entries"] if e["kind"] == "caller")
    marked = [m.t_ms for m in replay.markers if m.kind == "turn"]
    assert marked == [turns.sent_at(t) for t in caller]  # the replay's turn markers
    page_at = [e["t_ms"] for e in page["entries"] if e["kind"] == "caller"]
    assert page_at == [turns.sent_at(t) for t in caller]  # when the page says each was said
    page_errors = sum(m["kind"] == "error" for m in page["markers"])
    replay_errors = sum(m.kind == "error" for m in replay.markers)
    assert page_errors == replay_errors == len(errors)
    return {
        "rebuilt": (rebuilt.caller_turns, took, errors),
        "diff": (
            tuple(d.caller for d in diff),
            {t: ms for t, ms in diff_took.items() if ms is not None},
            errors,
        ),
        "replay": (tuple(e.text for e in said), took, errors),
        "page": (page_lines, took, errors),
    }


#: A frame is stamped as it crosses, and waits in the host's queue before the core takes it
#: (and records it) at most this long on a loaded machine: timings read off frames (an old
#: session's, a report's) agree with the core's to within it.
QUEUED_MS = 20


def _agree(ways: dict[str, Lines], want: Lines, *, exact: tuple[str, ...] = ()) -> None:
    """Every way has the caller lines and errors ``want`` has, and its timings; those not
    ``exact`` (read off frames' stamps) to within :data:`QUEUED_MS`."""
    for name, (said, took, errors) in ways.items():
        assert (said, errors) == want[::2], (name, said, errors)
        assert took.keys() == want[1].keys(), (name, took)
        slack = 0 if name in exact else QUEUED_MS
        assert all(abs(took[t] - want[1][t]) <= slack for t in took), (name, took, want[1])


#: The conversation as a transcript says it, in order: each caller line ("caller", turn id,
#: text), idle nudge ("idle", turn id, level), Interruption ("floor", the turn it kills
#: through) and unit ("unit", speech id, turn id).
Said = list[tuple[object, ...]]


def _transcript_says(report: Report) -> Said:
    out: Said = []
    for entry in transcript(report):
        match entry:
            case CallerLine(turn_id=turn, text=text):
                out.append(("caller", turn, text))
            case IdleNudge(turn_id=turn, level=level):
                out.append(("idle", turn, level))
            case FloorTaken(through_turn=through):
                out.append(("floor", through))
            case BotUnit(speech_id=sid, turn_id=turn):
                out.append(("unit", sid, turn))
    return out


def _core_decided(records: list[tuple[int, object]]) -> tuple[Said, list[int]]:
    """What the core decided, as its own records of the call say it (:data:`Said`), and the
    moment it decided each."""
    said: Said = []
    at: list[int] = []
    for t_ms, record in records:
        match record:
            case TurnSent(turn_id=turn, kind=TurnKind.CALLER, text=text):
                said.append(("caller", turn, text))
            case TurnSent(turn_id=turn, kind=TurnKind.IDLE, level=level):
                said.append(("idle", turn, level))
            case WatermarkRaised(through_turn=through):
                said.append(("floor", through))
            case UnitOpened(speech_id=sid, turn_id=turn):
                said.append(("unit", sid, turn))
            case _:
                continue
        at.append(t_ms)
    return said, at


def _conversation_at(report: Report) -> list[int]:
    """The moment of each of :data:`Said` in the report's conversation."""
    kept = CallerSaid | IdleSent | InterruptionSent | UnitStarted
    return [said.t_ms for said in report_conversation(report) if isinstance(said, kept)]


def _reports(store: SessionStore, session_id: str) -> dict[str, Report]:
    """The session's report (the one the call stored, else rebuilt) and the rebuilt one."""
    call = StoredCall.load(store, store.find(session_id))
    return {
        "session report": call.report,
        "rebuilt": _folded(call),
        "fed again": call.rebuilt,
    }


def _transcripts_agree(
    reports: dict[str, Report], decided: tuple[Said, list[int]], *, by_frames: tuple[str, ...] = ()
) -> None:
    """Every report's transcript says what the core decided, in its order, and its
    conversation has the core's moments; but those worked out ``by_frames`` (an older
    build's), whose stamps are the frames'."""
    said, at = decided
    for name, report in reports.items():
        assert _transcript_says(report) == said, name
        if name not in by_frames:
            assert _conversation_at(report) == at, name


def _sql(home: Path, *statements: tuple[str, tuple[Any, ...]]) -> None:
    db = sqlite3.connect(home / "sessions.db")
    try:
        with db:
            for sql, params in statements:
                db.execute(sql, params)
    finally:
        db.close()


def _as_an_older_build_stored_it(home: Path, session_id: str) -> None:
    """Take the core's records out (of its units and of its turns), and the mark that the
    session holds them."""
    kinds = [
        kind_of(t)
        for t in (UnitOpened, TextKept, UnitSealed, WatermarkRaised, *typing.get_args(TurnRecord))
    ]
    _sql(
        home,
        (
            f"DELETE FROM events WHERE session_id = ? AND kind IN ({','.join('?' * len(kinds))})",
            (session_id, *kinds),
        ),
        (
            "UPDATE events SET data = json_remove(data, '$.unit_records') "
            "WHERE session_id = ? AND kind = 'session_opened'",
            (session_id,),
        ),
    )


def test_a_finished_and_a_killed_call_read_the_same_units_every_way(tmp_path: Path) -> None:
    home = tmp_path / "home"
    script = tmp_path / "call.toml"
    script.write_text(SCRIPT)
    live_path = tmp_path / "live.json"
    call = sandbox_cli(
        home, "call", "--brain", "guardrail", "--script", str(script), "--idle-ms", IDLE_MS,
        "--report", str(live_path),
    )  # fmt: skip
    assert call.returncode == 0, call.stdout + call.stderr
    live_json = json.loads(live_path.read_text())
    session_id = live_json["session_id"]
    live: Seen = {
        u["speech_id"]: (u["fate"], u["heard"], u["interrupted"]) for u in live_json["units"]
    }
    assert {"played", "cancelled", "barged"} <= {fate for fate, _, _ in live.values()}, live
    assert any(interrupted and heard for _, heard, interrupted in live.values()), live

    lines = _live_lines(live_json)
    assert lines[0] and lines[1], lines  # the call has caller lines, and their answers' timings
    with SessionStore(home / "sessions.db") as store:
        assert _four_ways(store, session_id) == dict.fromkeys(
            ["rebuilt", "fed again", "replay", "page", "session report"], live
        )
        _agree(_lines_every_way(store, session_id), lines)
        decided = _core_decided(session_records(store, session_id))
        _transcripts_agree(
            {**_reports(store, session_id), "live": report_from_json(live_json)}, decided
        )
    kinds = [said[0] for said in decided[0]]
    assert {"caller", "floor", "unit"} <= set(kinds), decided
    # The caller's silence at the end: a nudge, then one a level up.
    assert [said[2] for said in decided[0] if said[0] == "idle"][-2:] == [1, 2], decided

    # The finished call as an older build stored it: its records are worked out from its
    # frames, and read the same.
    older = tmp_path / "older"
    older.mkdir()
    with (
        sqlite3.connect(home / "sessions.db") as source,
        sqlite3.connect(older / "sessions.db") as copy,
    ):
        source.backup(copy)
    _as_an_older_build_stored_it(older, session_id)
    with SessionStore(older / "sessions.db") as store:
        assert _four_ways(store, session_id, records=False) == dict.fromkeys(
            ["rebuilt", "fed again", "replay", "page", "session report"], live
        )
        _agree(_lines_every_way(store, session_id), lines)
        # Its stored report keeps the core's conversation; the rebuilt one is worked out of
        # the frames, and says the same.
        _transcripts_agree(_reports(store, session_id), decided, by_frames=("rebuilt",))

    # Killed at the second word the played-out greeting's successor had played: the process
    # dies there, nothing after it is stored.
    with SessionStore(home / "sessions.db") as store:
        events = store.events(session_id)
    words = [e for e in events if e.kind == "word_played"]
    by_unit: dict[int, list[Any]] = {}
    for word in words:
        by_unit.setdefault(word.data["speech_id"], []).append(word)
    in_play = next(sid for sid, said in by_unit.items() if len(said) >= 3 and sid != 1)
    kill = by_unit[in_play][1]
    _sql(
        home,
        ("DELETE FROM events WHERE session_id = ? AND seq > ?", (session_id, kill.seq)),
        ("DELETE FROM frames WHERE session_id = ? AND t_ms > ?", (session_id, kill.t_ms)),
        (
            "UPDATE sessions SET report = NULL, outcome = NULL, ended_at = NULL WHERE id = ?",
            (session_id,),
        ),
    )
    with SessionStore(home / "sessions.db") as store:
        killed = _four_ways(store, session_id)
        killed_lines = _lines_every_way(store, session_id)
        killed_decided = _core_decided(session_records(store, session_id))
        _transcripts_agree(_reports(store, session_id), killed_decided)
    assert 0 < len(killed_decided[0]) < len(decided[0])
    assert killed_decided == tuple(part[: len(killed_decided[0])] for part in decided)
    said = [t for t in live_json["turns"] if t["timeline"]["user_message"] <= kill.t_ms]
    killed_want = killed_lines["rebuilt"]
    assert killed_want[0] == lines[0][: len(said)]
    _agree(killed_lines, killed_want, exact=("rebuilt", "diff", "replay", "page"))
    ways = list(killed.values())
    assert all(way == ways[0] for way in ways), killed
    for sid, (fate, heard, interrupted) in ways[0].items():
        if sid == in_play:  # cut by the crash, heard what played before it
            assert (fate, interrupted) == ("crashed", True)
            assert heard and live[sid][1].startswith(heard) and heard != live[sid][1]
        else:  # sealed before the kill, as the live call sealed it
            assert (fate, heard, interrupted) == live[sid]

    # The same killed call as an older build stored it reads the same.
    _as_an_older_build_stored_it(home, session_id)
    with SessionStore(home / "sessions.db") as store:
        assert _four_ways(store, session_id, records=False) == killed
        _agree(_lines_every_way(store, session_id), killed_want)
        _transcripts_agree(
            _reports(store, session_id), killed_decided, by_frames=("rebuilt", "session report")
        )
