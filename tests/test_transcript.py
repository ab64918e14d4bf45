"""The transcript read from a report: errors, backchannels and stall notices stand where
they happened among the turns, in every text view (``sandbox call``, Markdown)."""

from __future__ import annotations

import msgspec
from report_check import bare_report

from sandbox.call.units import Fate
from sandbox.record.markdown import session_markdown
from sandbox.record.report import BackchannelReport, StallReport, UnitReport
from sandbox.record.store import SessionRow
from sandbox.record.transcript import transcript, transcript_line

HOURS = "Our hours are nine to five."
REPORT = bare_report(
    units=(UnitReport(1, 2, HOURS, HOURS, HOURS, False, Fate.PLAYED, 6, 6, ()),),
    frames=[
        {"t_ms": 100, "dir": "out", "type": "user_message", "turn_id": 2, "text": "hours?"},
        {"t_ms": 130, "dir": "in", "type": "speech_start", "speech_id": 1, "turn_id": 2},
        {"t_ms": 900, "dir": "out", "type": "user_message", "turn_id": 3, "text": "break"},
        {
            "t_ms": 950,
            "dir": "in",
            "type": "error",
            "code": "ERROR_CODE_INTERNAL",
            "message": "on_user_message raised RuntimeError: my bug",
            "fatal": False,
        },
        {"t_ms": 2000, "dir": "out", "type": "user_message", "turn_id": 4, "text": "hello?"},
        {"t_ms": 13_000, "dir": "out", "type": "end"},
    ],
    backchannels=(BackchannelReport(400, "uh huh", False),),
    stalls=(StallReport(12_000, 4, 10_000),),
)


def test_errors_backchannels_and_stalls_stand_where_they_happened() -> None:
    assert [transcript_line(e) for e in transcript(REPORT)] == [
        "  caller  [turn 2] hours?",
        "  bot     [unit 1, turn 2] 'Our hours are nine to five.'",
        "  caller  (backchannel) uh huh",
        "  caller  [turn 3] break",
        "  ✖ brain error INTERNAL: on_user_message raised RuntimeError: my bug",
        "  caller  [turn 4] hello?",
        "  ⚠ the brain has not answered turn 4 after 10 s; the call goes on",
    ]


def test_a_stall_after_the_last_frame_is_still_shown() -> None:
    cut_short = msgspec.structs.replace(REPORT, frames=REPORT.frames[:5])
    assert transcript_line(transcript(cut_short)[-1]).startswith("  ⚠ the brain has not")


def test_an_interruption_is_a_barge_in_only_when_it_cut_the_bots_speech() -> None:
    said = "Sure, I can help with that right away."
    report = bare_report(
        units=(
            UnitReport(1, 2, HOURS, HOURS, HOURS, False, Fate.PLAYED, 6, 6, ()),
            UnitReport(2, 3, said, said, "Sure, I can", True, Fate.BARGED, 3, 8, ()),
        ),
        frames=[
            {"t_ms": 100, "dir": "out", "type": "user_message", "turn_id": 2, "text": "hours?"},
            {"t_ms": 130, "dir": "in", "type": "speech_start", "speech_id": 1, "turn_id": 2},
            # Typed after the bot fell silent, with an answer still owed: nothing was cut.
            {"t_ms": 900, "dir": "out", "type": "interruption", "through_turn": 2},
            {"t_ms": 900, "dir": "out", "type": "user_message", "turn_id": 3, "text": "and?"},
            {"t_ms": 950, "dir": "in", "type": "speech_start", "speech_id": 2, "turn_id": 3},
            {"t_ms": 1500, "dir": "out", "type": "interruption", "through_turn": 3},
            {"t_ms": 1500, "dir": "out", "type": "user_message", "turn_id": 4, "text": "stop"},
        ],
    )
    lines = [transcript_line(e) for e in transcript(report)]
    assert lines[2] == "  ↪ a new turn, nothing cut: turns up to 2 are dead"
    assert lines[5] == "  ✋ barge-in: turns up to 3 are dead"
    row = SessionRow("0123456789abcdef", 0.0, 1.0, "ws://x", "direct", "typed", "0", 1,
                     "completed", "caller", "", 1500, 3, 2, 1, 0, None, None)  # fmt: skip
    markdown = session_markdown(row, report)
    assert "- *the caller's new turn, nothing cut: turns up to 2 are dead*" in markdown
    assert "- *✋ the caller barged in: turns up to 3 are dead*" in markdown
