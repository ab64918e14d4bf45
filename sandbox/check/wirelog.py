"""One call's record, as the core kept it, read against the rules that hold on every frame.

:class:`WireLog` walks the core's records of the call once, in the order it made them
(:class:`~sandbox.host.core_records.CoreRecords`), keeping what a scenario needs to judge
(units, turns, interruptions, cancels, requests) and flagging every frame the core dropped
for a rule it broke (a bracket invariant, a turn never minted, a Voqalize-only frame, a
bot-*/llm-* or unlisted RTVI: the core's :class:`~sandbox.call.breaches.WireBreach`, each
said as the contract says it), every message that was no envelope, and speech that went on
for a dead turn. It decides nothing the core decides: which frames broke which rule is the
core's word; what is the checker's own is the brain's timing (a dead turn's speech) and the
runtime's own promises, held to its records (one Finalize per unit, in order, each heard text
a prefix of its unit's, one Response per Request).

Speech for a dead turn is only flagged once the brain must have known: after a grace
for frames already in flight when the Interruption left, or as soon as the brain has
named a newer turn — which it can only do after reading the UserMessage that followed
the Interruption on the same socket.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sandbox.call.breaches import BrokenRule, WireBreach
from sandbox.call.effects import CallEnded, Effect, EndedBy, SpeakText, ToApp
from sandbox.call.ledger_records import StepRecord, WireErrorRecord
from sandbox.call.turn_records import (
    ArmSkipped,
    BracketClosed,
    FinalizeSent,
    RequestAnswered,
    TurnKind,
    TurnSent,
)
from sandbox.call.unit_records import TextKept, UnitOpened, UnitSealed, WatermarkRaised
from sandbox.call.units import Bracket
from sandbox.check import rules
from sandbox.check.results import Finding
from sandbox.check.rules import Rule
from sandbox.wire import pb
from sandbox.wire.catalog import RTVI_NAME_BY_TYPE
from sandbox.wire.direction import Direction

#: How long after an Interruption a dead turn's frames may still be in flight.
DEAD_TURN_GRACE_MS = 1000
_MALFORMED = pb.ErrorCode.Name(pb.ERROR_CODE_MALFORMED)


@dataclass
class UnitLog:
    """One unit the brain opened (and Voqalize accepted), as the core recorded it."""

    speech_id: int
    turn_id: int
    opened_ms: int
    index: int  # position of its opening among the call's records
    text: str = ""  # every chunk's text the core took, relayed or kept unspoken
    closed_by: Bracket | None = None  # how the brain closed its bracket, first
    cancel_index: int | None = None
    finalizes: list[tuple[int, str]] = field(default_factory=list)  # (index, heard)
    late_chunks: int = 0
    late_from_ms: int | None = None


@dataclass
class _Tally:
    """A finding that may repeat: reported once, with how often it happened."""

    rule: Rule
    detail: str
    t_ms: int | None
    count: int = 1


class WireLog:
    """See the module doc. ``findings`` are the frame-level rule breaks, in order."""

    def __init__(self, records: Iterable[tuple[int, Effect]]) -> None:
        """``records``: the core's effects with the call's time of each, in the order it
        made them (those it does not read are passed over)."""
        #: Units in the order they opened.
        self.units: dict[int, UnitLog] = {}
        #: Caller turns (UserMessage) in order: (turn_id, index among the records).
        self.caller_turns: list[tuple[int, int]] = []
        #: Interruptions Voqalize sent: (through_turn, t_ms, index).
        self.interruptions: list[tuple[int, int, int]] = []
        #: Requests from the brain: request_id -> Responses sent (status, detail).
        self.requests: dict[int, list[tuple[str, str]]] = {}
        #: TurnSteps from the brain, as recorded.
        self.steps: list[dict[str, object]] = []
        #: For each RTVI frame that crossed from the brain to the app, the newest turn
        #: Voqalize had minted then.
        self.rtvi_turns: list[int] = []
        #: What is worth saying but breaks no rule of the wire.
        self.notes: list[str] = []
        self._tallies: dict[tuple[Rule, object], _Tally] = {}
        self._heard: dict[int, str] = {}  # each sealed unit's heard text: its Finalize's
        self._turn = 0
        self._named_turn = 0  # the newest turn the brain's speech has named
        self._last_request = 0
        self._hung_up = False  # the caller ended the call (Voqalize sent End)
        for index, (t_ms, record) in enumerate(records):
            self._read(record, t_ms, index)
        self._at_end()

    @property
    def findings(self) -> list[Finding]:
        """Every rule break, once each (a repeat says how many times it happened)."""
        return [
            Finding(t.rule, t.detail + (f" ({t.count} times)" if t.count > 1 else ""), t.t_ms)
            for t in self._tallies.values()
        ]

    def units_on(self, turn_id: int) -> list[UnitLog]:
        """The units that named ``turn_id``."""
        return [u for u in self.units.values() if u.turn_id == turn_id]

    def killed_at(self, turn_id: int) -> int | None:
        """When (t_ms) the Interruption that killed ``turn_id`` crossed, or None."""
        for through, t_ms, _ in self.interruptions:
            if through >= turn_id:
                return t_ms
        return None

    # ---------------------------------------------------------------- reading

    def _flag(self, rule: Rule, key: object, detail: str, t_ms: int | None) -> None:
        tally = self._tallies.get((rule, key))
        if tally is None:
            self._tallies[(rule, key)] = _Tally(rule, detail, t_ms)
        else:
            tally.count += 1

    def _read(self, record: Effect, t: int, index: int) -> None:
        match record:
            case TurnSent(turn_id=turn, kind=kind):
                self._turn = max(self._turn, turn)
                if kind is TurnKind.CALLER:
                    self.caller_turns.append((turn, index))
            case WatermarkRaised(through_turn=through):
                self.interruptions.append((through, t, index))
            case UnitSealed(speech_id=sid, heard=heard):
                self._heard[sid] = heard
            case FinalizeSent(speech_id=sid) if sid in self.units:
                self.units[sid].finalizes.append((index, self._heard.get(sid, "")))
            case RequestAnswered(request_id=rid, status=status, detail=detail):
                self._request(rid, t)
                self.requests[rid].append((status, detail))
            case CallEnded(ended_by=EndedBy.CALLER):
                self._hung_up = True
            case WireErrorRecord(dir=Direction.OUT, code=code, message=message):
                if code == _MALFORMED:
                    self._flag(rules.BINARY_ONLY, code, f"the brain sent {message}", t)
            case ArmSkipped(field_numbers=numbers, size=size):
                self.notes.append(
                    f"the brain sent an envelope arm this build does not know (field "
                    f"{list(numbers)}, {size} bytes): skipped, as a Voqalize that "
                    "predates a frame skips it"
                )
            case WireBreach() as breach:
                self._breach(breach, t)
            case UnitOpened(speech_id=sid, turn_id=turn):
                self._start(sid, turn, t, index)
            case SpeakText(speech_id=sid, text=text) | TextKept(speech_id=sid, text=text):
                self._chunk(sid, text, t)
            case BracketClosed(speech_id=sid, cancelled=cancelled) if sid in self.units:
                self._closed(self.units[sid], cancelled, index)
            case ToApp():
                self.rtvi_turns.append(self._turn)
            case StepRecord() as step:
                fields = step.step
                self.steps.append(fields)
                if not step.known_turn:
                    # Floor-free and never answered: the core records it flagged, and so do we.
                    self.notes.append(
                        f"a TurnStep ({step.kind} {fields.get('name', '')!r}) names turn "
                        f"{step.turn_id}, {self._newest()}: recorded, flagged as naming an "
                        "unknown turn"
                    )

    def _breach(self, breach: WireBreach, t: int) -> None:
        """A frame the core dropped for the rule it broke, said as the contract says it (a
        rule not listed here is the core's own limit: its Error is the finding)."""
        sid, turn = breach.speech_id, breach.turn_id
        match breach.rule:
            case BrokenRule.SPEECH_ID_UNSET | BrokenRule.SPEECH_ID_REUSED:
                unset = breach.rule is BrokenRule.SPEECH_ID_UNSET
                what = "0 (unset)" if unset else f"{sid}, already used by an earlier unit"
                detail = f"a SpeechStart names speech_id {what}"
                self._flag(rules.ONE_SPEECH_ID, ("start", sid), detail, t)
            case BrokenRule.TURN_NEVER_MINTED:
                detail = f"unit {sid} names turn {turn}, {self._newest()}"
                self._flag(rules.SPEECH_NAMES_TURN, ("turn", turn), detail, t)
            case BrokenRule.CHUNK_OUTSIDE_UNIT | BrokenRule.CHUNK_AFTER_END:
                never = breach.rule is BrokenRule.CHUNK_OUTSIDE_UNIT
                state = "never opened" if never else "already closed by SpeechEnd"
                detail = f"a SpeechChunk for unit {sid}, which was {state}"
                self._flag(rules.BRACKETS_BALANCE, ("chunk", sid), detail, t)
            case BrokenRule.END_NEVER_OPENED | BrokenRule.SECOND_END:
                never = breach.rule is BrokenRule.END_NEVER_OPENED
                state = "never opened" if never else "already closed"
                detail = f"a SpeechEnd for unit {sid}, {state}"
                self._flag(rules.BRACKETS_BALANCE, ("end", sid), detail, t)
            case BrokenRule.CANCEL_NAMES_NO_UNIT:
                detail = f"a SpeechCancel names speech_id {sid}, which this session never opened"
                self._flag(rules.CANCEL_NAMES_A_UNIT, ("cancel", sid), detail, t)
            case BrokenRule.VOQALIZE_ARM:
                detail = f"the brain sent {breach.arm}, a frame only Voqalize sends"
                self._flag(rules.FLOOR_IS_VOQALIZES, breach.arm, detail, t)
            case BrokenRule.RTVI_FORGED | BrokenRule.RTVI_NOT_LISTED:
                forged = breach.rule is BrokenRule.RTVI_FORGED
                rule = rules.RTVI_NOT_FORGED if forged else rules.RTVI_WHITELIST
                spelled = _spelling(breach.rtvi_type)
                self._flag(rule, ("rtvi", spelled), f"the brain sent RTVI {spelled}", t)
            case BrokenRule.RTVI_TOO_BIG:
                detail = f"RTVI {_spelling(breach.rtvi_type)} data is {breach.size} bytes"
                self._flag(rules.RTVI_SIZE, "rtvi-size", detail, t)

    def _start(self, sid: int, turn: int, t: int, index: int) -> None:
        self.units[sid] = UnitLog(sid, turn, t, index)
        if self._late_for(turn, t):
            self._flag(
                rules.DEAD_TURN_STOPS,
                ("start", sid),
                f"unit {sid} opened on turn {turn} {self._since_kill(turn, t)}",
                t,
            )
        self._named_turn = max(self._named_turn, turn)

    def _chunk(self, sid: int, text: str, t: int) -> None:
        unit = self.units.get(sid)
        if unit is None:
            return
        unit.text += text
        if unit.closed_by is None and text and self._late_for(unit.turn_id, t):
            unit.late_chunks += 1
            if unit.late_from_ms is None:
                unit.late_from_ms = t

    def _closed(self, unit: UnitLog, cancelled: bool, index: int) -> None:
        """The brain closed the unit's bracket: the first close is how it closed it (a
        SpeechEnd after a SpeechCancel is ignored; a SpeechCancel after SpeechEnd cuts)."""
        if cancelled and unit.cancel_index is None:
            unit.cancel_index = index
        if unit.closed_by is None:
            unit.closed_by = Bracket.CANCELLED if cancelled else Bracket.ENDED

    def _request(self, request_id: int, t: int) -> None:
        if request_id <= self._last_request:
            self._flag(
                rules.REQUEST_IDS_RISE,
                ("request", request_id),
                f"Request {request_id} after Request {self._last_request}",
                t,
            )
        self._last_request = max(self._last_request, request_id)
        self.requests.setdefault(request_id, [])

    def _newest(self) -> str:
        return f"but the newest turn Voqalize had minted was {self._turn}"

    # ------------------------------------------------------------- dead turns

    def _late_for(self, turn: int, t: int) -> bool:
        """Speech for ``turn`` at ``t`` comes after the brain must have seen it die."""
        killed = self.killed_at(turn)
        if killed is None:
            return False
        return t - killed > DEAD_TURN_GRACE_MS or self._named_turn > turn_through(
            self.interruptions, turn
        )

    def _since_kill(self, turn: int, t: int) -> str:
        killed = self.killed_at(turn)
        assert killed is not None
        through = turn_through(self.interruptions, turn)
        return f"{t - killed} ms after Interruption(through_turn={through})"

    # ---------------------------------------------------------------- the end

    def _at_end(self) -> None:
        for unit in self.units.values():
            self._unit_at_end(unit)
        opened = list(self.units)
        finalized = [
            sid
            for _, sid in sorted(
                (index, u.speech_id) for u in self.units.values() for index, _ in u.finalizes
            )
        ]
        if finalized != opened:
            self._flag(
                rules.ONE_FINALIZE,
                "order",
                f"Voqalize (the runtime, not the brain) finalized units {finalized} for "
                f"brackets opened as {opened}",
                None,
            )
        for request_id, answers in self.requests.items():
            if len(answers) != 1:
                self._flag(
                    rules.ONE_RESPONSE,
                    ("response", request_id),
                    f"Request {request_id} got {len(answers)} Responses from Voqalize "
                    "(the runtime)",
                    None,
                )

    def _unit_at_end(self, unit: UnitLog) -> None:
        sid, turn = unit.speech_id, unit.turn_id
        # The unit streaming when the caller hung up had no chance to be closed.
        streaming = self._hung_up and sid == next(reversed(self.units))
        if unit.closed_by is None and not streaming:
            self._flag(
                rules.BRACKETS_BALANCE,
                ("open", sid),
                f"unit {sid} (turn {turn}) was never closed by SpeechEnd or SpeechCancel",
                unit.opened_ms,
            )
        elif not unit.text and self.killed_at(turn) is None:
            # Wire-legal: it gets its Finalize like any unit. Whether the brain pairs that
            # Finalize with it (enrols it) is not on the wire: only its own tests can tell.
            self.notes.append(
                f"unit {sid} (turn {turn}) was opened and closed with no text in it: legal on "
                "the wire; check in your brain's tests (VoqalizeDriver) that it pairs its "
                "Finalize with that unit"
            )
        if unit.late_chunks and unit.late_from_ms is not None:
            self._flag(
                rules.DEAD_TURN_STOPS,
                ("chunks", sid),
                f"unit {sid} kept speaking for turn {turn}: {unit.late_chunks} chunk(s), the "
                f"first {self._since_kill(turn, unit.late_from_ms)}",
                unit.late_from_ms,
            )
        for _, heard in unit.finalizes:
            if not unit.text.startswith(heard):
                self._flag(
                    rules.HEARD_IS_PREFIX,
                    ("heard", sid),
                    f"Voqalize (the runtime) reported {heard!r} heard of unit {sid}, which "
                    f"said {unit.text!r}",
                    unit.opened_ms,
                )


def turn_through(interruptions: Sequence[tuple[int, int, int]], turn: int) -> int:
    """The through_turn of the first Interruption that killed ``turn`` (``turn`` if none)."""
    return next((through for through, _, _ in interruptions if through >= turn), turn)


def _spelling(rtvi_type: int) -> str:
    """An RTVI type as RTVI spells it ("bot-ready"), from its number."""
    spelled = RTVI_NAME_BY_TYPE.get(rtvi_type)
    if spelled is not None:
        return spelled
    return "with no type" if rtvi_type == 0 else f"of unknown type {rtvi_type}"
