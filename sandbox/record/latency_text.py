"""A session's latency waterfalls as ``sandbox sessions show --latency`` prints them: each
caller turn's waterfall drawn as the app's ``f7`` draws it (:mod:`.waterfall_text`), then a
table, one row per caller turn, one column per stage, each cell the stage's ms after the
turn's caller voice end, and the p50 and p90 of each stage over the turns that reached it."""

from __future__ import annotations

import math
from collections.abc import Sequence

from rich.table import Table

from sandbox.call.waterfall import NETWORK_STAGES, STAGES, from_start, stages_named
from sandbox.record.report import Report
from sandbox.record.table_text import table_lines
from sandbox.record.waterfall_text import waterfall_text

#: A stage the turn did not reach, or that was not measured.
ABSENT = "-"
#: Turns the table shows one by one (the first ones): thousands of rows are not read, and
#: take minutes to lay out. The percentiles are over every turn.
MAX_TURNS_SHOWN = 500
#: Turns whose waterfall is drawn (the first ones): a dozen lines each.
MAX_WATERFALLS_SHOWN = 50


def percentile(values: Sequence[int], fraction: float) -> int:
    """The nearest-rank percentile of ``values`` (not empty): the smallest value at least
    ``fraction`` of them are no greater than, so it is always one that was measured."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def latency_lines(report: Report) -> list[str]:
    """The table's lines, or one line saying there is nothing to show."""
    turns = report.turns or ()
    rows = [(turn.turn_id, from_start(turn.timeline.marks)) for turn in turns]
    rows = [(turn_id, marks) for turn_id, marks in rows if marks]
    if not rows:
        return ["no caller turn has a latency timeline (an older build's session, or none)"]
    stages = [s for s in STAGES if any(s in marks for _, marks in rows)]
    table = Table(box=None, pad_edge=False, show_edge=False)
    table.add_column("turn", justify="right")
    for stage in stages:
        table.add_column(stage.replace("_", " "), justify="right")
    gaps: dict[int, int] = {}  # dead air inside the turn's units, after its first audio
    for gap in report.dead_air or ():
        gaps[gap.turn_id] = gaps.get(gap.turn_id, 0) + gap.silent_ms
    if gaps:
        table.add_column("dead air", justify="right")
    for turn_id, marks in rows[:MAX_TURNS_SHOWN]:
        cells = [_ms(marks.get(stage)) for stage in stages]
        table.add_row(str(turn_id), *cells, *([_ms(gaps.get(turn_id))] if gaps else []))
    table.add_row()  # a blank line between the turns and their percentiles
    for name, fraction in (("p50", 0.5), ("p90", 0.9)):
        cells = []
        for stage in stages:
            values = [marks[stage] for _, marks in rows if stage in marks]
            cells.append(_ms(percentile(values, fraction) if values else None))
        table.add_row(name, *cells, *([""] if gaps else []))
    head = (
        "latency: ms after each turn's caller voice end (a turn with none, typed or "
        "simulated, counts from its first stage); - not reached or not measured"
    )
    on_line = any(stage in stages for stage in NETWORK_STAGES)
    legend = [
        f"  {stage.replace('_', ' ')}: {words}" for stage, words in stages_named(on_line).items()
    ]
    if gaps:
        legend.append(
            "  dead air: ms inside the turn's open units with nothing played or sent (a brain "
            "awaiting a tool mid-unit), after its first audio"
        )
    drawn: list[str] = []
    for turn in turns[:MAX_WATERFALLS_SHOWN]:
        drawn += [*waterfall_text(turn.turn_id, turn.timeline.marks).plain.split("\n"), ""]
    if len(turns) > MAX_WATERFALLS_SHOWN:
        drawn += [f"(the waterfalls of the first {MAX_WATERFALLS_SHOWN} turns drawn)", ""]
    lines = [*drawn, head, "", *table_lines(table)]
    if len(rows) > MAX_TURNS_SHOWN:  # a table of thousands of rows is not read, and is slow
        lines.append(
            f"(the first {MAX_TURNS_SHOWN} of {len(rows):,} turns shown; p50 and p90 are over "
            "all of them)"
        )
    return [*lines, "", "stages:", *legend]


def _ms(value: int | None) -> str:
    return ABSENT if value is None else str(value)
