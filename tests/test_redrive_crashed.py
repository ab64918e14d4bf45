"""The re-drive's side-by-side diff says a unit of a crashed session crashed, rather than
showing its text as if it had been said and heard that way."""

from __future__ import annotations

from report_check import bare_report

from sandbox.call.units import Fate
from sandbox.record.report import UnitReport
from sandbox.replay.diff import compare, side_by_side

ASKED = {"t_ms": 100, "dir": "out", "type": "user_message", "turn_id": 2, "text": "hours?"}
OPENED = {"t_ms": 130, "dir": "in", "type": "speech_start", "speech_id": 1, "turn_id": 2}
HOURS = "Our hours are nine to five."


def test_a_unit_the_crash_cut_short_is_said_to_have_crashed() -> None:
    crashed = UnitReport(1, 2, "Our hours", "Our hours", "Our", True, Fate.CRASHED, 1, 2, ())
    played = UnitReport(1, 2, HOURS, HOURS, HOURS, False, Fate.PLAYED, 6, 6, ())
    before = bare_report([ASKED, OPENED], units=(crashed,))
    after = bare_report([ASKED, OPENED], units=(played,))
    shown = side_by_side(compare(before, after, [], ignore_text=False)).splitlines()
    assert "    before  'Our hours'  ✖ crashed: the call's process died here (heard 'Our')" in shown
    assert f"    after   {HOURS!r}" in shown
