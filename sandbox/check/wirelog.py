"""One call's recorded frames, read against the rules that hold on every frame.

:class:`WireLog` walks the record once, in the order frames crossed, keeping what a
scenario needs to judge (units, turns, interruptions, cancels, requests) and flagging
every frame that breaks a bracket invariant, names a turn never minted, forges a
Voqalize-only frame or a bot-*/llm-* RTVI, or keeps speaking for a dead turn.

Speech for a dead turn is only flagged once the brain must have known: after a grace
for frames already in flight when the Interruption left, or as soon as the brain has
named a newer turn — which it can only do after reading the UserMessage that followed
the Interruption on the same socket.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sandbox.check import rules
from sandbox.check.results import Finding
from sandbox.check.rules import Rule
from sandbox.record.recorder import FrameRecord
from sandbox.wire import pb
from sandbox.wire.catalog import (
    BRAIN_RTVI_TYPES,
    RTVI_DATA_LIMIT,
    RTVI_NAME_BY_TYPE,
    VOQALIZE_ARMS,
)

#: How long after an Interruption a dead turn's frames may still be in flight.
DEAD_TURN_GRACE_MS = 1000
_MINTS = ("session_start", "user_message", "user_idle")
_BRAIN_RTVI = frozenset(pb.RTVIType.Name(t) for t in BRAIN_RTVI_TYPES)
#: The RTVI spelling by the enum name a record holds ("RTVI_TYPE_BOT_READY": "bot-ready").
_SPELLING = {pb.RTVIType.Name(t): name for t, name in RTVI_NAME_BY_TYPE.items()}


@dataclass
class UnitLog:
    """One unit the brain opened (and Voqalize accepted), as it crossed."""

    speech_id: int
    turn_id: int
    opened_ms: int
    index: int  # position of its SpeechStart in the record
    text: str = ""
    closed_by: str | None = None  # "end" or "cancel"
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

    def __init__(self, frames: Sequence[FrameRecord]) -> None:
        #: Units in the order they opened.
        self.units: dict[int, UnitLog] = {}
        #: Caller turns (UserMessage) in order: (turn_id, index in the record).
        self.caller_turns: list[tuple[int, int]] = []
        #: Interruptions Voqalize sent: (through_turn, t_ms, index).
        self.interruptions: list[tuple[int, int, int]] = []
        #: Requests from the brain: request_id -> Responses seen (status, detail).
        self.requests: dict[int, list[tuple[str, str]]] = {}
        #: TurnSteps from the brain, as recorded.
        self.steps: list[dict[str, object]] = []
        #: RTVI frames from the brain, as recorded.
        self.rtvi: list[FrameRecord] = []
        #: What is worth saying but breaks no rule of the wire.
        self.notes: list[str] = []
        self._tallies: dict[tuple[Rule, object], _Tally] = {}
        self._refused: set[int] = set()  # units refused for naming a turn never minted
        self._turn = 0
        self._named_turn = 0  # the newest turn the brain's speech has named
        self._last_request = 0
        self._hung_up = False  # Voqalize ended the session (End or Cancel): the caller hung up
        for index, frame in enumerate(frames):
            if frame.dir == "out":
                self._out(frame, index)
            else:
                self._in(frame, index)
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

    def _out(self, frame: FrameRecord, index: int) -> None:
        f = frame.fields
        if frame.type in _MINTS:
            self._turn = max(self._turn, int(f.get("turn_id", 0)))
            if frame.type == "user_message":
                self.caller_turns.append((int(f.get("turn_id", 0)), index))
        elif frame.type == "interruption":
            self.interruptions.append((int(f.get("through_turn", 0)), frame.t_ms, index))
        elif frame.type == "finalize":
            unit = self.units.get(int(f.get("speech_id", 0)))
            if unit is not None:
                unit.finalizes.append((index, str(f.get("heard_text", ""))))
        elif frame.type == "response":
            answers = self.requests.setdefault(int(f.get("request_id", 0)), [])
            answers.append((str(f.get("status", "")), str(f.get("detail", ""))))
        elif frame.type in ("end", "cancel"):
            self._hung_up = True

    def _in(self, frame: FrameRecord, index: int) -> None:
        kind, f, t = frame.type, frame.fields, frame.t_ms
        if kind == "undecodable":
            self._flag(rules.BINARY_ONLY, kind, f"the brain sent {f.get('detail')}", t)
        elif kind == "unknown":
            self.notes.append(
                f"the brain sent an envelope arm this build does not know (field "
                f"{f.get('arms')}, {f.get('bytes')} bytes): skipped, as a Voqalize that "
                "predates a frame skips it"
            )
        elif kind in VOQALIZE_ARMS:
            self._flag(
                rules.FLOOR_IS_VOQALIZES,
                kind,
                f"the brain sent {kind}, a frame only Voqalize sends",
                t,
            )
        elif kind == "speech_start":
            self._start(int(f.get("speech_id", 0)), int(f.get("turn_id", 0)), t, index)
        elif kind == "speech_chunk":
            self._chunk(int(f.get("speech_id", 0)), str(f.get("text", "")), t)
        elif kind == "speech_end":
            self._end(int(f.get("speech_id", 0)), t)
        elif kind == "speech_cancel":
            self._cancel(int(f.get("speech_id", 0)), t, index)
        elif kind == "rtvi":
            self.rtvi.append(frame)
            self._rtvi(f.get("type"), str(f.get("data", "")), t)
        elif kind == "request":
            self._request(int(f.get("request_id", 0)), t)
        elif kind == "turn_step":
            self.steps.append(dict(f))
            turn = int(f.get("turn_id", 0))
            if turn == 0 or turn > self._turn:
                # Floor-free and never answered: the runtime records it flagged, and so do we.
                self.notes.append(
                    f"a TurnStep ({f.get('kind', '')} {f.get('name', '')!r}) names turn {turn}, "
                    f"{self._newest()}: recorded, flagged as naming an unknown turn"
                )

    def _start(self, sid: int, turn: int, t: int, index: int) -> None:
        if sid == 0 or sid in self.units:
            what = "0 (unset)" if sid == 0 else f"{sid}, already used by an earlier unit"
            self._flag(
                rules.ONE_SPEECH_ID, ("start", sid), f"a SpeechStart names speech_id {what}", t
            )
            return
        if turn == 0 or turn > self._turn:
            self._refused.add(sid)
            self._flag(
                rules.SPEECH_NAMES_TURN,
                ("turn", turn),
                f"unit {sid} names turn {turn}, {self._newest()}",
                t,
            )
            return
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
        if sid in self._refused:
            return  # its SpeechStart was the mistake, flagged once
        unit = self.units.get(sid)
        if unit is None or unit.closed_by == "end":
            state = "never opened" if unit is None else "already closed by SpeechEnd"
            self._flag(
                rules.BRACKETS_BALANCE,
                ("chunk", sid),
                f"a SpeechChunk for unit {sid}, which was {state}",
                t,
            )
            return
        unit.text += text
        if unit.closed_by is None and text and self._late_for(unit.turn_id, t):
            unit.late_chunks += 1
            if unit.late_from_ms is None:
                unit.late_from_ms = t

    def _end(self, sid: int, t: int) -> None:
        if sid in self._refused:
            return
        unit = self.units.get(sid)
        if unit is None or unit.closed_by == "end":
            state = "never opened" if unit is None else "already closed"
            self._flag(
                rules.BRACKETS_BALANCE, ("end", sid), f"a SpeechEnd for unit {sid}, {state}", t
            )
        elif unit.closed_by is None:
            unit.closed_by = "end"  # a SpeechEnd after SpeechCancel is ignored, not an error

    def _cancel(self, sid: int, t: int, index: int) -> None:
        unit = self.units.get(sid)  # a refused unit never opened: the runtime says so too
        if unit is None:
            self._flag(
                rules.CANCEL_NAMES_A_UNIT,
                ("cancel", sid),
                f"a SpeechCancel names speech_id {sid}, which this session never opened",
                t,
            )
            return
        if unit.cancel_index is None:
            unit.cancel_index = index
        if unit.closed_by is None:
            unit.closed_by = "cancel"  # after SpeechEnd it is legal too: it cuts playout

    def _rtvi(self, rtvi_type: object, data: str, t: int) -> None:
        spelled = _spelling(rtvi_type)
        if rtvi_type not in _BRAIN_RTVI:
            forged = spelled.startswith(("bot-", "llm-"))
            rule = rules.RTVI_NOT_FORGED if forged else rules.RTVI_WHITELIST
            self._flag(rule, ("rtvi", spelled), f"the brain sent RTVI {spelled}", t)
        size = len(data.encode())
        if size > RTVI_DATA_LIMIT:
            self._flag(rules.RTVI_SIZE, "rtvi-size", f"RTVI {spelled} data is {size} bytes", t)

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


def _spelling(rtvi_type: object) -> str:
    """An RTVI type as RTVI spells it ("bot-ready"), from its recorded enum name or number."""
    if isinstance(rtvi_type, str):
        return _SPELLING.get(rtvi_type, rtvi_type)
    return "with no type" if rtvi_type is None else f"of unknown type {rtvi_type}"
