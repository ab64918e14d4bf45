"""The transcript read from a report's conversation (the core's records, not its frames):
errors, backchannels and stall notices stand where they happened among the turns, in every
text view (``sandbox call``, Markdown); an older build's report, which has only frames,
reads the same."""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET
from report_check import bare_report

from sandbox.call.effects import EndedBy
from sandbox.call.outcome import Outcome
from sandbox.call.units import Fate
from sandbox.record.markdown import session_markdown
from sandbox.record.report import (
    BackchannelReport,
    CallerSaid,
    ErrorReport,
    FirstChunk,
    InterruptionSent,
    StallReport,
    UnitReport,
    UnitStarted,
)
from sandbox.record.session_kinds import CallMode, Leg
from sandbox.record.store import SessionRow
from sandbox.record.transcript import (
    BotUnit,
    CallerLine,
    transcript,
    transcript_line,
    with_runs_folded,
)
from sandbox.record.unit_log import report_conversation
from sandbox.wire.direction import Direction

HOURS = "Our hours are nine to five."
UNITS = (UnitReport(1, 2, HOURS, HOURS, HOURS, False, Fate.PLAYED, 6, 6, ()),)
BUG = "on_user_message raised RuntimeError: my bug"
ASIDES: dict[str, Any] = {
    "errors": (ErrorReport(950, Direction.IN, "ERROR_CODE_INTERNAL", BUG, False),),
    "backchannels": (BackchannelReport(400, "uh huh", False),),
    "stalls": (StallReport(12_000, 4, 10_000),),
}
REPORT = bare_report(
    units=UNITS,
    conversation=(
        CallerSaid(t_ms=100, turn_id=2, text="hours?"),
        UnitStarted(t_ms=130, speech_id=1, turn_id=2),
        FirstChunk(t_ms=131, turn_id=2),
        CallerSaid(t_ms=900, turn_id=3, text="break"),
        CallerSaid(t_ms=2000, turn_id=4, text="hello?"),
    ),
    **ASIDES,
)
#: The same call as an older build's report keeps it: its frames, no conversation.
FRAMES: list[dict[str, Any]] = [
    {"t_ms": 100, "dir": "out", "type": "user_message", "turn_id": 2, "text": "hours?"},
    {"t_ms": 130, "dir": "in", "type": "speech_start", "speech_id": 1, "turn_id": 2},
    {"t_ms": 131, "dir": "in", "type": "speech_chunk", "speech_id": 1, "text": HOURS},
    {"t_ms": 900, "dir": "out", "type": "user_message", "turn_id": 3, "text": "break"},
    {"t_ms": 950, "dir": "in", "type": "error", "code": "ERROR_CODE_INTERNAL", "message": BUG,
     "fatal": False},
    {"t_ms": 2000, "dir": "out", "type": "user_message", "turn_id": 4, "text": "hello?"},
    {"t_ms": 13_000, "dir": "out", "type": "end"},
]  # fmt: skip
LINES = [
    "  caller  [turn 2] hours?",
    "  bot     [unit 1, turn 2] 'Our hours are nine to five.'",
    "  caller  (backchannel) uh huh",
    "  caller  [turn 3] break",
    f"  ✖ brain error INTERNAL: {BUG}",
    "  caller  [turn 4] hello?",
    "  ⚠ the brain has not answered turn 4 after 10 s; the call goes on",
]


def test_errors_backchannels_and_stalls_stand_where_they_happened() -> None:
    assert [transcript_line(e) for e in transcript(REPORT)] == LINES


def test_an_older_builds_report_reads_the_same_from_its_frames() -> None:
    older = bare_report(FRAMES, units=UNITS, **ASIDES)
    assert older.conversation is UNSET
    assert report_conversation(older) == REPORT.conversation
    assert transcript(older) == transcript(REPORT)


def test_the_conversation_is_read_not_the_frames() -> None:
    """The core's record stands, whatever the frames' stamps say: here the caller's turn 3
    went out at 960 ms by its frame, after the error, but the core sent it at 900."""
    late = [{**f, "t_ms": 960} if f.get("turn_id") == 3 else f for f in FRAMES]
    both = msgspec.structs.replace(REPORT, frames=bare_report(late).frames)
    assert [transcript_line(e) for e in transcript(both)] == LINES
    by_frames = msgspec.structs.replace(both, conversation=UNSET)  # read as an older build's
    swapped = [*LINES[:3], LINES[4], LINES[3], *LINES[5:]]
    assert [transcript_line(e) for e in transcript(by_frames)] == swapped


def test_a_stall_after_the_last_record_is_still_shown() -> None:
    assert isinstance(REPORT.conversation, tuple)
    cut_short = msgspec.structs.replace(REPORT, conversation=REPORT.conversation[:4])
    assert transcript_line(transcript(cut_short)[-1]).startswith("  ⚠ the brain has not")


def test_an_interruption_is_a_barge_in_only_when_it_cut_the_bots_speech() -> None:
    said = "Sure, I can help with that right away."
    report = bare_report(
        units=(
            UnitReport(1, 2, HOURS, HOURS, HOURS, False, Fate.PLAYED, 6, 6, ()),
            UnitReport(2, 3, said, said, "Sure, I can", True, Fate.BARGED, 3, 8, ()),
        ),
        conversation=(
            CallerSaid(t_ms=100, turn_id=2, text="hours?"),
            UnitStarted(t_ms=130, speech_id=1, turn_id=2),
            # Typed after the bot fell silent, with an answer still owed: nothing was cut.
            InterruptionSent(t_ms=900, through_turn=2),
            CallerSaid(t_ms=900, turn_id=3, text="and?"),
            UnitStarted(t_ms=950, speech_id=2, turn_id=3),
            InterruptionSent(t_ms=1500, through_turn=3),
            CallerSaid(t_ms=1500, turn_id=4, text="stop"),
        ),
    )
    lines = [transcript_line(e) for e in transcript(report)]
    assert lines[2] == "  ↪ a new turn, nothing cut: turns up to 2 are dead"
    assert lines[5] == "  ✋ barge-in: turns up to 3 are dead"
    row = SessionRow("0123456789abcdef", 0.0, 1.0, "ws://x", Leg.DIRECT, CallMode.TYPED, "0", 1,
                     Outcome.COMPLETED, EndedBy.CALLER, "", 1500, 3, 2, 1, 0, None,
                     None)  # fmt: skip
    markdown = session_markdown(row, report)
    assert "- *the caller's new turn, nothing cut: turns up to 2 are dead*" in markdown
    assert "- *✋ the caller barged in: turns up to 3 are dead*" in markdown


def test_a_run_of_empty_units_is_one_line_and_a_lone_one_prints_as_before() -> None:
    """A brain opening unit after unit and saying nothing is one line for the run, not one
    line a unit (14,000 of them printed 14,000 lines); a unit with text ends the run."""
    empty = [BotUnit(sid, 2, "", "", Fate.SILENT, False) for sid in range(5, 14_005)]
    spoken = BotUnit(20_000, 3, HOURS, HOURS, Fate.PLAYED, False)
    lone = BotUnit(20_001, 3, "", "", Fate.SILENT, False)
    folded = with_runs_folded([CallerLine(2, "Hello?"), *empty, spoken, lone])
    assert [transcript_line(entry) for entry in folded] == [
        "  caller  [turn 2] Hello?",
        "  bot     [units 5 to 14004, turn 2] 14,000 empty units, no text",
        f"  bot     [unit 20000, turn 3] '{HOURS}'",
        "  bot     [unit 20001, turn 3] ''",
    ]
    # A cut unit is never folded, even with nothing heard: its cut is shown.
    cut = BotUnit(7, 2, "Wait", "", Fate.BARGED, True)
    assert with_runs_folded([empty[0], cut, empty[1]]) == [empty[0], cut, empty[1]]
