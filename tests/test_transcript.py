"""The transcript read from a report: errors, backchannels and stall notices stand where
they happened among the turns, in every text view (``sandbox call``, Markdown)."""

from __future__ import annotations

import msgspec
from report_check import bare_report

from sandbox.call.units import Fate
from sandbox.record.report import BackchannelReport, StallReport, UnitReport
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
