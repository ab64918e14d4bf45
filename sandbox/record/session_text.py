"""A saved session in plain words, as ``sandbox sessions show`` prints it (and the printers'
fuzz target reads it): its index, its transcript and its call record."""

from __future__ import annotations

import time

from sandbox.record.plain_text import visible
from sandbox.record.record_text import record_lines
from sandbox.record.report import Report
from sandbox.record.session_words import outcome_sentence, shown_brain
from sandbox.record.store import SessionRow
from sandbox.record.transcript import transcript, transcript_line, with_runs_folded
from sandbox.record.unkept_words import unkept_line


def session_text(row: SessionRow, report: Report) -> str:
    """The session as ``sessions show`` prints it; what a brain or a caller wrote (the
    end's detail, a close reason, the URL) is shown :func:`visible`."""
    started = local_time(row.started_at, "%Y-%m-%d %H:%M:%S")
    lines = [
        f"session {visible(row.id)}",
        f"  started {started} · {row.mode} · {row.leg} leg · "
        f"brain {visible(shown_brain(row, report))}",
        f"  outcome {outcome_sentence(row.status, row.ended_by)}",
    ]
    if report.line:  # unset (no line) or not
        lines.insert(2, f"  line {visible(report.line)}")
    why = row.end_detail or report.end_detail  # unfinished: the rebuilt one's
    if why:
        lines.append(f"  why: {visible(why)}")
    if row.recording_stopped:
        lines.append(f"  {visible(row.recording_stopped)}")
    if (unkept := unkept_line(report)) is not None:
        lines.append(f"  {unkept}")
    lines.append("")
    lines += [transcript_line(entry) for entry in with_runs_folded(transcript(report))]
    if report.record:  # a call cut short, or recorded by an older build, has none
        lines += ["", "the call record:"]
        lines += [f"  {line}" for line in record_lines(report.record)]
    return "\n".join(lines)


def local_time(at: float, pattern: str) -> str:
    """A stored time as local time in ``pattern``; ``?`` for one no clock can show (a
    doctored row's year 5,000,000)."""
    try:
        return time.strftime(pattern, time.localtime(at))
    except (OverflowError, OSError, ValueError):
        return "?"
