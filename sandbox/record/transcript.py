"""A session's conversation in the order the core recorded it, read from its report: who
said what, what the caller heard of each bot unit, and where the floor changed hands.

One walk over the report's conversation (the core's records, never its frames) for every
text view of a call: ``sessions show``, the Markdown export and the page; ``sandbox call``
prints the same lines as the call goes, from the same records.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

from sandbox.call.ledger_records import WireErrorRecord
from sandbox.call.units import Fate
from sandbox.record.plain_text import quoted, visible
from sandbox.record.reload_notice import RELOAD_MARK, ReloadNotice
from sandbox.record.report import (
    CallerSaid,
    ErrorReport,
    IdleSent,
    InterruptionSent,
    ReloadSaid,
    Report,
    UnitReport,
    UnitStarted,
)
from sandbox.record.unit_log import report_conversation

#: A unit cut by its call's process dying, in words (its fate is ``crashed``).
CRASHED_WORDS = "cut by a crash: the call's process stopped"


@dataclass(frozen=True)
class CallerLine:
    """A caller turn (spoken, or typed in the app)."""

    turn_id: int
    text: str


@dataclass(frozen=True)
class IdleNudge:
    """The caller stayed silent: an idle turn went to the brain."""

    turn_id: int
    level: int


@dataclass(frozen=True)
class FloorTaken:
    """An Interruption: turns up to ``through_turn`` are dead. ``cut``: it cut the bot's
    speech (a barge-in); a caller's new turn when nothing was left unheard (typed after the
    bot fell silent, with an answer still owed) cuts nothing."""

    through_turn: int
    cut: bool = True


@dataclass(frozen=True)
class BotUnit:
    """One unit of the bot's speech, where the core opened it."""

    speech_id: int
    turn_id: int
    generated: str
    heard: str
    fate: Fate
    #: The caller did not hear all of it (``Unit.interrupted``, as the report keeps it).
    cut: bool

    @property
    def unheard(self) -> str:
        """What was generated after the heard prefix (empty when all of it was heard)."""
        return self.generated[len(self.heard) :].strip()

    @property
    def fate_words(self) -> str:
        """The fate as the printers say it."""
        return CRASHED_WORDS if self.fate is Fate.CRASHED else self.fate.value

    @property
    def cut_mark(self) -> str:
        """``✂ N of M words heard`` for a cut unit, else empty."""
        if not self.cut:
            return ""
        return f"✂ {len(self.heard.split())} of {len(self.generated.split())} words heard"


@dataclass(frozen=True)
class CallerBackchannel:
    """A backchannel over the bot ("uh huh"): heard, never a turn, never a cut."""

    text: str
    resumed: bool


@dataclass(frozen=True)
class WireError:
    """An error the core recorded: ``dir`` "in" from the brain, "out" to it."""

    dir: str
    code: str
    message: str
    fatal: bool


@dataclass(frozen=True)
class BrainStall:
    """The user was told the brain had not answered a turn."""

    turn_id: int
    waited_ms: int


@dataclass(frozen=True)
class DeadAirGap:
    """Dead air inside an open unit: the brain sent nothing for it and nothing played, from
    ``t_ms`` for ``silent_ms``."""

    turn_id: int
    speech_id: int
    silent_ms: int
    t_ms: int = 0


@dataclass(frozen=True)
class BrainReloaded:
    """``sandbox brain --reload`` loaded the brain's file again at ``t_ms`` and told the call
    (see :mod:`sandbox.record.reload_notice`): the turns after it ran the new code."""

    notice: ReloadNotice
    t_ms: int


class NumberedUnit(Protocol):
    """What a run of empty units reads of each: a printed :class:`BotUnit`, or a unit the
    app's conversation pane draws."""

    @property
    def speech_id(self) -> int:
        """Its brain-minted id."""

    @property
    def turn_id(self) -> int:
        """The turn it answers."""


@dataclass(frozen=True)
class EmptyUnits:
    """A run of bot units one after another with no text in them at all, from unit
    ``first_id`` (turn ``first_turn``) to ``last_id`` (turn ``last_turn``): a brain opening
    unit after unit and saying nothing is printed as one line, not one line each (14,000
    of them once printed 14,000 lines)."""

    first_id: int
    last_id: int
    count: int
    first_turn: int
    last_turn: int

    def add(self, unit: NumberedUnit) -> EmptyUnits:
        """The run with ``unit`` after it."""
        return replace(self, last_id=unit.speech_id, count=self.count + 1, last_turn=unit.turn_id)


Entry = (
    CallerLine
    | IdleNudge
    | FloorTaken
    | BotUnit
    | EmptyUnits
    | CallerBackchannel
    | WireError
    | BrainStall
    | DeadAirGap
    | BrainReloaded
)


def transcript(report: Report) -> list[Entry]:
    """The report's conversation in the order the core recorded it
    (:func:`~sandbox.record.unit_log.report_conversation`); errors, backchannels, stall
    notices and dead air stand where their time puts them."""
    units = {u.speech_id: u for u in report.units}
    asides = sorted(
        [(e.t_ms, wire_error(e)) for e in report.errors]
        + [(b.t_ms, CallerBackchannel(b.text, b.resumed)) for b in report.backchannels or ()]
        + [(s.t_ms, BrainStall(s.turn_id, s.waited_ms)) for s in report.stalls or ()]
        + [
            (g.t_ms, DeadAirGap(g.turn_id, g.speech_id, g.silent_ms, g.t_ms))
            for g in report.dead_air or ()
        ],
        key=lambda pair: pair[0],
    )
    out: list[Entry] = []
    for said in report_conversation(report):
        while asides and asides[0][0] <= said.t_ms:
            out.append(asides.pop(0)[1])
        match said:
            case CallerSaid(turn_id=turn, text=text):
                out.append(CallerLine(turn, text))
            case IdleSent(turn_id=turn, level=level):
                out.append(IdleNudge(turn, level))
            case InterruptionSent(through_turn=through):
                out.append(FloorTaken(through))
            case UnitStarted(speech_id=sid) if sid in units:
                out.append(_bot_unit(units[sid]))
            case ReloadSaid(t_ms=at):
                out.append(BrainReloaded(said.notice, at))
    return _with_cuts(out + [aside for _, aside in asides])


def _with_cuts(entries: list[Entry]) -> list[Entry]:
    """Each Interruption marked with whether it cut the bot's speech: a unit of a turn it
    killed (above the one before it) went unheard in part."""
    barged = [e for e in entries if isinstance(e, BotUnit) and e.fate is Fate.BARGED and e.cut]
    out: list[Entry] = []
    before = 0
    for entry in entries:
        if isinstance(entry, FloorTaken):
            through = entry.through_turn
            cut = any(before < unit.turn_id <= through for unit in barged)
            entry, before = FloorTaken(through, cut), max(before, through)
        out.append(entry)
    return out


def is_empty(entry: Entry) -> bool:
    """A bot unit with no text in it at all (nothing to hear, nothing cut)."""
    return isinstance(entry, BotUnit) and not entry.generated and not entry.cut


def empty_run(unit: NumberedUnit) -> EmptyUnits:
    """A run of empty units that starts with ``unit``."""
    return EmptyUnits(unit.speech_id, unit.speech_id, 1, unit.turn_id, unit.turn_id)


def with_runs_folded(entries: list[Entry]) -> list[Entry]:
    """``entries`` with each run of two or more empty units one after another folded into
    one :class:`EmptyUnits`: what the printers print."""
    out: list[Entry] = []
    for entry in entries:
        last = out[-1] if out else None
        if isinstance(entry, BotUnit) and is_empty(entry):
            if isinstance(last, EmptyUnits):
                out[-1] = last.add(entry)
                continue
            if isinstance(last, BotUnit) and is_empty(last):
                out[-1] = empty_run(last).add(entry)
                continue
        out.append(entry)
    return out


def wire_error(error: WireErrorRecord | ErrorReport) -> WireError:
    """An error the core recorded (live, or as the report keeps it), as a transcript says it."""
    code = error.code.removeprefix("ERROR_CODE_")
    return WireError(str(error.dir), code, error.message, error.fatal)


def _bot_unit(unit: UnitReport) -> BotUnit:
    return BotUnit(
        unit.speech_id, unit.turn_id, unit.generated, unit.heard, unit.fate, unit.interrupted
    )


def transcript_line(entry: Entry) -> str:
    """One entry as a line of terminal text (a cut unit takes two); what the brain or the
    caller said is shown :func:`visible`, so it cannot control the terminal."""
    match entry:
        case CallerLine(turn_id=turn, text=text):
            return f"  caller  [turn {turn}] {visible(text)}"
        case IdleNudge(turn_id=turn, level=level):
            return f"  (idle)  [turn {turn}] level {level}"
        case FloorTaken(through_turn=through, cut=True):
            return f"  ✋ barge-in: turns up to {through} are dead"
        case FloorTaken(through_turn=through):
            return f"  ↪ a new turn, nothing cut: turns up to {through} are dead"
        case CallerBackchannel(text=text, resumed=resumed):
            how = " (the bot paused, then went on)" if resumed else ""
            return f"  caller  (backchannel{how}) {visible(text)}"
        case WireError(dir=direction, code=code, message=message, fatal=fatal):
            who = "brain error" if direction == "in" else "told the brain"
            fatality = " (fatal)" if fatal else ""
            return f"  ✖ {who} {visible(code)}{fatality}: {visible(message)}"
        case BrainStall(turn_id=turn, waited_ms=waited):
            return f"  ⚠ {stall_words(turn, waited)}"
        case DeadAirGap(turn_id=turn, speech_id=sid, silent_ms=silent):
            return f"  ⏸ {dead_air_words(turn, sid, silent, lasting=False)}"
        case BrainReloaded(notice=notice):
            return f"  {RELOAD_MARK} {visible(notice.words)}"
        case EmptyUnits(count=1, first_id=sid, first_turn=turn):
            return f"  bot     [unit {sid}, turn {turn}] ''"
        case EmptyUnits(first_id=first, last_id=last, count=count):
            turns = f"turn {entry.first_turn}"
            if entry.last_turn != entry.first_turn:
                turns = f"turns {entry.first_turn} to {entry.last_turn}"
            return f"  bot     [units {first} to {last}, {turns}] {count:,} empty units, no text"
        case BotUnit():
            # Quoted, so the heard text's end shows where the cut fell.
            line = f"  bot     [unit {entry.speech_id}, turn {entry.turn_id}] {quoted(entry.heard)}"
            if entry.cut:
                line += f"   {entry.cut_mark}\n          unheard {quoted(entry.unheard)}"
                line += f" ({entry.fate_words})"
            return line


def dead_air_words(turn_id: int, speech_id: int, silent_ms: int, *, lasting: bool) -> str:
    """What dead air inside an open unit is called, while it ``lasting`` or once it ended.
    The unit stays open: a brain awaiting a tool mid-unit is within the wire's rules."""
    where = f"(turn {turn_id}, unit {speech_id})"
    if lasting:
        return f"the brain has been silent mid-sentence for {silent_ms // 1000} s {where}"
    return (
        f"the brain was silent mid-sentence for {silent_ms / 1000:.1f} s {where}: dead air "
        "the caller heard"
    )


def stall_words(turn_id: int, waited_ms: int) -> str:
    """What a stall notice says: turn 1 is the session's start, which a brain that never
    sent a frame has not answered at all."""
    if turn_id == 1:
        return (
            f"the brain has sent nothing since the call started {waited_ms / 1000:.0f} s ago "
            "(no greeting, no frame at all); the call goes on"
        )
    waited = f"{waited_ms / 1000:.0f} s"
    return f"the brain has not answered turn {turn_id} after {waited}; the call goes on"
