"""Before and after: two runs of the same caller side, compared turn by turn on heard truth.

Both runs are :class:`~sandbox.record.report.Report` values. Caller turns are matched
in order; under each, the units that answered it are compared on what was generated, what
was heard and whether it was cut. The heard history is what a heard-truth brain would hold
at the end (the caller's lines and what was heard of each unit, in the order the core
recorded them); it changing is what makes a re-drive "changed". ``ignore_text`` compares
structure only: how many units, which were cut, for brains whose wording is not
deterministic. Both read the report's conversation
(:func:`~sandbox.record.unit_log.report_conversation`), never its frames.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sandbox.call.units import Fate
from sandbox.record.conversation_log import heard_history
from sandbox.record.plain_text import visible
from sandbox.record.report import (
    CallerSaid,
    FirstChunk,
    GreetingSent,
    Report,
)
from sandbox.record.session_words import ended_by_words
from sandbox.record.unit_log import report_conversation


@dataclass(frozen=True)
class UnitSide:
    """One unit as one run had it."""

    generated: str
    heard: str
    cut: bool
    fate: Fate


@dataclass
class TurnDiff:
    """One caller turn, and the units that answered it before and after."""

    caller: str
    before: list[UnitSide] = field(default_factory=list)
    after: list[UnitSide] = field(default_factory=list)
    #: The caller's turn going out → the answer's first chunk coming in (None: no answer).
    first_chunk_ms_before: int | None = None
    first_chunk_ms_after: int | None = None

    def changed(self, ignore_text: bool) -> bool:
        """Whether what the caller heard of the answer differs; with ``ignore_text``, whether
        its shape does (how many units, which were cut)."""
        if ignore_text:
            return [u.cut for u in self.before] != [u.cut for u in self.after]
        return [u.heard for u in self.before] != [u.heard for u in self.after]


@dataclass
class Diff:
    """The whole comparison."""

    turns: list[TurnDiff]
    history_before: list[tuple[str, str]]
    history_after: list[tuple[str, str]]
    findings: list[str]
    ignore_text: bool = False
    #: Why the new run stopped before the caller's side was played out (the brain refused
    #: the session, died, or hung up where it had not before), or None; the turns after it
    #: have no answer.
    ended_early: str | None = None

    @property
    def history_changed(self) -> bool:
        """The heard history differs (or, with ``ignore_text``, its shape does)."""
        if self.ignore_text:
            return [r for r, _ in self.history_before] != [r for r, _ in self.history_after]
        return self.history_before != self.history_after

    @property
    def exit_status(self) -> int:
        """0 unchanged and clean, 1 the heard history changed, 2 a rule of the wire broken."""
        if self.findings:
            return 2
        return (
            1 if self.history_changed or any(t.changed(self.ignore_text) for t in self.turns) else 0
        )

    def as_json(self) -> dict[str, Any]:
        """The diff as one JSON-able object."""
        return {
            "exit_status": self.exit_status,
            "history_changed": self.history_changed,
            "history_before": [list(e) for e in self.history_before],
            "history_after": [list(e) for e in self.history_after],
            "turns": [
                {
                    "caller": t.caller,
                    "changed": t.changed(self.ignore_text),
                    "before": [vars(u) for u in t.before],
                    "after": [vars(u) for u in t.after],
                    "first_chunk_ms_before": t.first_chunk_ms_before,
                    "first_chunk_ms_after": t.first_chunk_ms_after,
                }
                for t in self.turns
            ],
            "findings": self.findings,
            "ended_early": self.ended_early,
        }


def compare(before: Report, after: Report, findings: list[str], *, ignore_text: bool) -> Diff:
    """Compare two runs of one caller side."""
    first, second = _turns(before), _turns(after)
    turns = []
    nothing: _Turn = ("", [], None)
    for index in range(max(len(first), len(second))):
        caller, units_before, took_before = first[index] if index < len(first) else nothing
        caller_after, units_after, took_after = second[index] if index < len(second) else nothing
        turns.append(
            TurnDiff(caller or caller_after, units_before, units_after, took_before, took_after)
        )
    history = (_history(before), _history(after))
    return Diff(turns, *history, findings, ignore_text, _ended_early(before, after))


def _ended_early(before: Report, after: Report) -> str | None:
    ended_by = after.ended_by
    if ended_by == "caller" or ended_by == before.ended_by:
        return None
    detail = after.end_detail
    at_s = max((f.t_ms for f in after.frames), default=0) / 1000
    how = ended_by_words(ended_by) + (f" ({detail})" if detail else "")
    return f"the re-drive stopped at {at_s:.1f} s: {how}; the turns after it have no answer"


def _sides(report: Report) -> dict[int, list[tuple[int, UnitSide]]]:
    """Units by the turn they answered: (speech id, side)."""
    out: dict[int, list[tuple[int, UnitSide]]] = {}
    for unit in report.units:
        side = UnitSide(unit.generated, unit.heard, unit.interrupted, unit.fate)
        out.setdefault(unit.turn_id, []).append((unit.speech_id, side))
    return out


_Turn = tuple[str, list[UnitSide], int | None]


def _turns(report: Report) -> list[_Turn]:
    """The greeting, then each caller turn: the units that answered it, and how long its
    first chunk took from the turn going out (SessionStart for the greeting), as the report's
    conversation says (:func:`~sandbox.record.unit_log.report_conversation`)."""
    units = _sides(report)
    sent: dict[int, int] = {}
    first_chunk: dict[int, int] = {}
    lines = [("(greeting)", 1)]
    for said in report_conversation(report):
        match said:
            case GreetingSent(turn_id=turn):
                sent.setdefault(turn, said.t_ms)
            case CallerSaid(turn_id=turn, text=text):
                sent.setdefault(turn, said.t_ms)
                lines.append((text, turn))
            case FirstChunk(turn_id=turn):
                first_chunk.setdefault(turn, said.t_ms)
    return [
        (text, [side for _sid, side in units.get(turn, [])], _took(sent, first_chunk, turn))
        for text, turn in lines
    ]


def _took(sent: dict[int, int], first_chunk: dict[int, int], turn: int) -> int | None:
    """From turn ``turn`` going out to its answer's first chunk; None without both."""
    if turn not in sent or turn not in first_chunk:
        return None
    return first_chunk[turn] - sent[turn]


def _history(report: Report) -> list[tuple[str, str]]:
    """What a heard-truth brain holds at the end, as the core recorded the call."""
    return heard_history(report_conversation(report), {u.speech_id: u.heard for u in report.units})


def side_by_side(diff: Diff) -> str:
    """The diff for a terminal: each caller turn, then the answer before and after."""
    lines = []
    for turn in diff.turns:
        mark = "≠" if turn.changed(diff.ignore_text) else "="
        took = f"first chunk {_ms(turn.first_chunk_ms_before)} → {_ms(turn.first_chunk_ms_after)}"
        lines.append(f"{mark} caller: {visible(turn.caller)}   ({took})")
        for label, sides in (("before", turn.before), ("after ", turn.after)):
            if not sides:
                lines.append(f"    {label}  (no unit)")
            for side in sides:
                lines.append(f"    {label}  {side.generated!r}{_how(side)}")
    if diff.ended_early:
        lines.append(visible(diff.ended_early))
    lines.append(f"heard history {'changed' if diff.history_changed else 'unchanged'}")
    lines += [f"rule broken: {visible(finding)}" for finding in diff.findings]
    return "\n".join(lines)


def _how(side: UnitSide) -> str:
    """What became of a unit, after its text: cut (and what was heard), or never finished
    because the call's process died (a crashed session's unit: its text is what had come)."""
    if side.fate is Fate.CRASHED:
        return f"  ✖ crashed: the call's process died here (heard {side.heard!r})"
    return f"  ✂ heard {side.heard!r}" if side.cut else ""


def _ms(value: int | None) -> str:
    return "—" if value is None else f"{value} ms"
