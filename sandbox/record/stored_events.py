"""The runtime's events as the session store keeps them: every kind a call writes, each with
its type, in one registry, and the one place an event becomes a stored row and back.

The host stores what the core and the playout told it (effects, words played, the
listener's events), the recorder what it counted or cut, the call record each finding once
decided, and the session its opening, a demo's narration, a lost device and ``sandbox
audit``'s result. A stored row is its kind (the type's name in snake case, but for the three
in :data:`_NAMED`) and its fields as a JSON object, as they always were, so an old session
still loads. Reading a row gives its typed value, checked field by field; a row whose data
does not fit its kind is one :class:`DamagedEvent`, which every reader says in words.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

import msgspec

from sandbox.call.caller_events import ListenerEvent
from sandbox.call.effects import (
    CallEnded,
    CallerIdle,
    CallerShown,
    CloseUnit,
    CutPlayout,
    ListenWith,
    Notice,
    OpenUnit,
    PausePlayout,
    ResumePlayout,
    SpeakText,
    StateChanged,
    ToApp,
)
from sandbox.call.endpointing_steps import EndpointingStep
from sandbox.call.played import ClauseUnsaid, UnitPlayed, UnitUnspoken, WordPlayed
from sandbox.call.settings import Settings
from sandbox.call.turn_records import TurnRecord
from sandbox.call.unit_records import UnitRecord
from sandbox.line.profile import LineProfile
from sandbox.record.input_log import CoreBegun, InputsUnkept, StoredInput
from sandbox.record.plain_text import visible
from sandbox.record.report import Finding, ValueHeard, ValueReadBack
from sandbox.record.unkept_kinds import UnkeptKind

#: The kind the store gives a row whose data is not a JSON object at all (its data then
#: names the kind it was stored under, and says so).
UNREADABLE = "unreadable"


@dataclass(frozen=True)
class FramesUnkeptFrom:
    """From the store's frame ``seq`` on, frames of ``kind`` were only counted: ``kept``
    were kept of unit ``speech_id`` (-1: of every unit of the kind, its cap reached)."""

    kind: UnkeptKind
    seq: int
    speech_id: int
    kept: int


@dataclass(frozen=True)
class MalformedUnkept:
    """``count`` messages that were no envelope were only counted, past the ``kept``."""

    count: int
    kept: int


@dataclass(frozen=True)
class FramesUnkept:
    """The frames only counted so far, by kind, past the ``kept`` of each, and the units
    only counted (``units``; 0 in an older build's)."""

    counts: Mapping[UnkeptKind, int]
    kept: int
    units: int = 0


@dataclass(frozen=True)
class FrameCut:
    """The store's frame ``seq`` was ``bytes`` long and is kept as its first ``kept_bytes``."""

    seq: int
    bytes: int
    kept_bytes: int


@dataclass(frozen=True)
class SessionOpened:
    """The session's first event: its brain's name, the settings it started with, and the
    phone line it is on, in words (None: none, the laptop's wideband path).
    ``unit_records``: the session stores the core's records of its units
    (:mod:`sandbox.call.unit_records`); an older build's did not, and its readers work them
    out from its frames (:mod:`sandbox.record.unit_log`). ``inputs``: it stores every input
    its core was fed, as it was fed (:mod:`sandbox.record.input_log`)."""

    brain_name: str | None = None
    settings: Settings = field(default_factory=Settings)
    line: str | None = None
    unit_records: bool = False
    inputs: bool = False
    #: The line as values (its words are a view of them); None: none, or an older build's.
    line_profile: LineProfile | None = None


@dataclass(frozen=True)
class ScenePlayed:
    """A demo scene began: its name and title."""

    name: str
    title: str


@dataclass(frozen=True)
class CaptionShown:
    """A demo caption, filled in from the call, as it was shown."""

    text: str


@dataclass(frozen=True)
class UnitAudit:
    """One unit as ``sandbox audit`` heard it: its recorded heard text, what Whisper heard
    in its clip, how far apart."""

    speech_id: int
    heard: str
    transcribed: str
    words_off: int
    verdict: str
    start_ms: int
    end_ms: int


@dataclass(frozen=True)
class Audited:
    """``sandbox audit``'s result, kept after the call's own events (the latest replaces)."""

    units: tuple[UnitAudit, ...]


@dataclass(frozen=True)
class DeviceLost:
    """An audio device went away mid-call; ``words`` as the app said it."""

    words: str


@dataclass(frozen=True)
class ScriptNoted:
    """A caller script drives the call; ``notes``: what it could not do, so far (the latest
    replaces the earlier ones)."""

    notes: tuple[str, ...]


@dataclass(frozen=True)
class ProcessStopped:
    """Never stored: the moment a reader adds at the end of a call whose process died."""


Recorded = (
    ListenerEvent
    | WordPlayed
    | UnitPlayed
    | UnitUnspoken
    | ClauseUnsaid
    | UnitRecord
    | TurnRecord
    | OpenUnit
    | SpeakText
    | CloseUnit
    | CutPlayout
    | PausePlayout
    | ResumePlayout
    | ListenWith
    | Notice
    | ToApp
    | CallerShown
    | CallerIdle
    | StateChanged
    | CallEnded
    | ValueHeard
    | ValueReadBack
    | Finding
    | FramesUnkeptFrom
    | MalformedUnkept
    | FramesUnkept
    | FrameCut
    | SessionOpened
    | ScenePlayed
    | CaptionShown
    | Audited
    | DeviceLost
    | EndpointingStep
    | ProcessStopped
    | ScriptNoted
    | CoreBegun
    | InputsUnkept
    | StoredInput
)
"""Every event a stored session holds, by its type."""

#: The kinds not named after their type (older than this registry).
_NAMED: Mapping[type[Any], str] = {
    ValueHeard: "entity_heard",
    ValueReadBack: "entity_readback",
    Audited: "audit",
}


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")


#: Each stored kind's type.
EVENT_TYPES: Mapping[str, type[Any]] = {
    _NAMED.get(cls, _snake(cls.__name__)): cls for cls in typing.get_args(Recorded)
}
_KINDS: Mapping[type[Any], str] = {cls: kind for kind, cls in EVENT_TYPES.items()}


@dataclass(frozen=True)
class DamagedEvent:
    """A stored event whose data does not fit its kind (a damaged row, or one written over):
    its kind and what is wrong, which a reader says rather than reads."""

    kind: str
    why: str

    @property
    def words(self) -> str:
        """The event, said: ``a recorded word_played event could not be read (…)``."""
        return f"a recorded {visible(self.kind)} event could not be read ({visible(self.why)})"


def kind_of(cls: type[Any]) -> str:
    """The kind a value of type ``cls`` is stored under."""
    return _KINDS[cls]


def event_kind(value: Recorded) -> str:
    """The kind ``value`` is stored under."""
    return kind_of(type(value))


def event_row(value: Recorded) -> tuple[str, dict[str, Any]]:
    """``value`` as the store keeps it: its kind, and its fields as a JSON object."""
    data: dict[str, Any] = msgspec.to_builtins(value)
    return event_kind(value), data


def read_event(kind: str, data: Mapping[str, Any]) -> Recorded | DamagedEvent | None:
    """A stored row's value: of its kind's type, checked field by field (a number stored as
    text does not fit); a :class:`DamagedEvent` when it does not fit; None for a kind this
    build does not know (a later build's), which no reader reads."""
    if kind == UNREADABLE:
        return DamagedEvent(str(data.get("kind", kind)), str(data.get("detail", "")))
    cls = EVENT_TYPES.get(kind)
    if cls is None:
        return None
    try:
        value: Recorded = _read(cls, data)
    except msgspec.ValidationError as exc:
        return DamagedEvent(kind, str(exc))
    return value


def _read(cls: Any, data: Mapping[str, Any]) -> Any:
    shape = _shape(cls)
    if shape is None:
        return msgspec.convert(data, cls)
    # msgspec reads a Literal of plain values only: such a field is read as its enum, then
    # held to the Literal's members.
    struct, allowed = shape
    read = msgspec.structs.asdict(msgspec.convert(data, struct))
    for name, members in allowed.items():
        if read[name] not in members:
            words = ", ".join(repr(str(m)) for m in members)
            raise msgspec.ValidationError(f"Expected one of {words} - at `$.{name}`")
    return cls(**read)


@functools.cache
def _shape(cls: Any) -> tuple[type[msgspec.Struct], dict[str, tuple[Any, ...]]] | None:
    """For a dataclass with a field typed as a Literal of enum members (a turn's close),
    a Struct of the same fields with that field typed as its enum, and the members each
    such field allows; None for any other type."""
    if not hasattr(cls, "__dataclass_fields__"):
        return None
    hints = typing.get_type_hints(cls)
    allowed = {
        f.name: typing.get_args(hints[f.name])
        for f in fields(cls)
        if typing.get_origin(hints[f.name]) is typing.Literal
    }
    if not allowed:
        return None
    typed = {name: type(members[0]) for name, members in allowed.items()}
    columns = [
        (f.name, typed.get(f.name, hints[f.name]))
        if f.default is MISSING
        else (f.name, typed.get(f.name, hints[f.name]), f.default)
        for f in fields(cls)
    ]
    return msgspec.defstruct(cls.__name__, columns), allowed
