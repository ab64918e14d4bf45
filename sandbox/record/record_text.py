"""The call record in words: the lines every text view shows (``sandbox call``, ``sandbox
sessions show``, the Markdown export, the app's record card, replay)."""

from __future__ import annotations

from sandbox.call.outcome import Outcome
from sandbox.record.plain_text import quoted, visible
from sandbox.record.report import (
    CallRecord,
    Finding,
    NameRefused,
    ValueReadBack,
    finding_kind,
)

_STATUS = {
    "confirmed": "read back and confirmed",
    "corrected": "read back, and the caller corrected it",
    "unconfirmed": "never confirmed",
    "not_heard": "read back, but the caller cut in before hearing it",
}


def record_lines(record: CallRecord) -> list[str]:
    """``record`` (a report's ``record``) as lines of plain text, most important first;
    the caller's and the brain's words in them :func:`visible`."""
    lines = [f"outcome {record.outcome}" + (f": {record.reason}" if record.reason else "")]
    if record.outcome is Outcome.NOT_REACHED:
        lines.append("summary skipped, no name or values kept: a line that never rang says nothing")
    if record.below_floor:
        lines.append(f"below the floor: {record.floor}; summary skipped")
    if record.caller_name:
        lines.append(f"the caller's name: {record.caller_name}")
    for back in record.readbacks:
        lines.append(_value_words(back.kind, back.value, back.turn, back.status))
    told = {(r.turn, r.kind, r.value) for r in record.readbacks}
    for value in record.entities:
        if (value.turn, value.kind, value.value) not in told:
            lines.append(f"{value.kind} {value.value} (turn {value.turn})")
    lines += [finding_line(f) for f in record.findings]
    return [visible(line) for line in lines]


def value_line(back: ValueReadBack) -> str:
    """One value's read-back from its stored event: ``phone 07700900123 (turn 2): read
    back and confirmed`` (:func:`visible`, as every line here)."""
    return visible(_value_words(back.kind, back.value, back.turn, back.status))


def _value_words(kind: str, value: str, turn: int, status: str) -> str:
    return f"{kind} {value} (turn {turn}): {_STATUS.get(status, status)} [{status}]"


def finding_line(finding: Finding) -> str:
    """One name or promise finding: ``name_refused: …``, ``promised_unbooked: …``."""
    kind = finding_kind(finding)
    if isinstance(finding, NameRefused):
        return f"{kind}: {quoted(finding.word)} is a form of address, not kept as a name"
    return visible(f"{kind}: {finding.detail}")
