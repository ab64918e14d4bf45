"""A saved call as a short Markdown summary, to paste into an issue or a chat.

The transcript as the caller heard it (a cut unit's unheard remainder struck through; the
errors, backchannels, stalls and reloads of the brain where they happened), the cuts, and
the one figure this runtime exists for: how many generated words a runtime that logs
generated text would have put in the history although the caller never heard them.

Whatever a caller or a brain said is data here: every line of the summary is one this module
writes, and no text can add one (a line ending is spelt out, never kept), nor make itself a
heading, list item, link or HTML (Markdown's active characters are escaped).
"""

from __future__ import annotations

import re
import time

from sandbox.call.outcome import Outcome
from sandbox.record.plain_text import visible
from sandbox.record.record_text import record_lines
from sandbox.record.reload_notice import RELOAD_MARK
from sandbox.record.report import Report
from sandbox.record.session_words import outcome_sentence, shown_brain
from sandbox.record.store import SessionRow, short_id
from sandbox.record.transcript import (
    BotUnit,
    BrainReloaded,
    BrainStall,
    CallerBackchannel,
    CallerLine,
    EmptyUnits,
    FloorTaken,
    IdleNudge,
    WireError,
    transcript,
    with_runs_folded,
)

#: Markdown's active characters (``&`` for entities, ``!`` for images), backslash first.
_SPECIAL = re.compile(r"([\\`*_~|<>\[\]#&!])")
_TICKS = re.compile(r"`+")


def session_markdown(row: SessionRow, report: Report) -> str:
    """The session ``row`` (with its report) as Markdown."""
    started = time.strftime("%Y-%m-%d %H:%M", time.localtime(row.started_at))
    length = f"{row.duration_ms / 1000:.1f} s" if row.duration_ms is not None else "unfinished"
    lines = [
        f"## Call {short_id(row.id)}: {_md(outcome_sentence(row.status, row.ended_by))}",
        "",
        f"{started} · {length} · {row.mode} · {row.leg} leg · "
        f"brain {_code(shown_brain(row, report))}",
    ]
    if report.line:
        lines.append(f"On the line {_md(report.line)}")
    why = row.end_detail or report.end_detail  # unfinished: the rebuilt one's
    if why:
        lines.append(f"Why it ended: {_md(why)}")
    lines += ["", "### Transcript (what the caller heard)", ""]
    entries = transcript(report)
    units = [e for e in entries if isinstance(e, BotUnit)]
    for entry in with_runs_folded(entries):
        match entry:
            case CallerLine(turn_id=turn, text=text):
                lines.append(f"- **Caller** (turn {turn}): {_md(text)}")
            case IdleNudge(turn_id=turn, level=level):
                lines.append(
                    f"- *the caller stayed silent: idle nudge, level {level}* (turn {turn})"
                )
            case FloorTaken(through_turn=through, cut=True):
                lines.append(f"- *✋ the caller barged in: turns up to {through} are dead*")
            case FloorTaken(through_turn=through):
                lines.append(
                    f"- *the caller's new turn, nothing cut: turns up to {through} are dead*"
                )
            case BotUnit():
                lines.append(f"- **Bot** (unit {entry.speech_id}): {_heard(entry)}")
            case EmptyUnits(first_id=first, last_id=last, count=count):
                lines.append(f"- **Bot** (units {first} to {last}): {count:,} empty units")
            case CallerBackchannel(text=text):
                lines.append(f"- *the caller, over the bot (backchannel): {_md(text)}*")
            case WireError(dir=direction, code=code, message=message):
                who = "the brain reported" if direction == "in" else "the brain was told"
                lines.append(f"- *✖ {who} {_code(code)}: {_md(message)}*")
            case BrainStall(turn_id=turn, waited_ms=waited):
                lines.append(f"- *⚠ no answer to turn {turn} after {waited / 1000:.0f} s*")
            case BrainReloaded(notice=notice):
                lines.append(f"- *{RELOAD_MARK} {_md(notice.words)}*")
    cut = [u for u in units if u.cut]
    record = report.record or None  # a call cut short, or from an older build, has none
    lines += ["", "### Heard truth", ""]
    if record is not None and record.outcome is Outcome.NOT_REACHED:
        lines.append("Not summarised: the call was not reached.")
    elif record is not None and record.below_floor:
        lines.append(f"Not summarised: {_md(record.floor)}.")
    else:
        lines.append(
            f"{len(units)} unit{'s' if len(units) != 1 else ''}, {len(cut)} cut. "
            + _never_heard(cut)
        )
    if record is not None:
        lines += ["", "### The call record", ""]
        lines += [f"- {_md(line)}" for line in record_lines(record)]
    return "\n".join(lines) + "\n"


def _heard(unit: BotUnit) -> str:
    if not unit.cut:
        return _md(unit.heard)
    heard = _md(unit.heard) if unit.heard else "*(nothing)*"
    return f"{heard} ~~{_md(unit.unheard)}~~ ({unit.cut_mark}, {unit.fate_words})"


def _never_heard(cut: list[BotUnit]) -> str:
    words = sum(len(u.generated.split()) - len(u.heard.split()) for u in cut)
    if not words:
        return "The caller heard everything the brain generated."
    return (
        f"A runtime that logs generated text would have stored {words} more "
        f"word{'s' if words != 1 else ''} the caller never heard; this history keeps only "
        "what was played."
    )


def _md(text: str) -> str:
    """Text as literal Markdown on one line: controls spelt out, special characters escaped."""
    return _SPECIAL.sub(r"\\\1", visible(text))


def _code(text: str) -> str:
    """Text as an inline code span on one line: a backslash escapes nothing inside one, so
    the fence is a backtick longer than any run of them in the text."""
    text = visible(text)
    fence = "`" * (max((len(run) for run in _TICKS.findall(text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"
