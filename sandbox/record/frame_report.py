"""A frame as the report keeps it: a typed envelope over the body's fields, which cannot change.

A report's ``frames`` are every frame as it crossed, in the JSON shape users' scripts read:
``t_ms``, ``dir``, ``type``, then the body's fields by their wire names (an RTVI frame's own
``type`` as ``rtvi_type``, so it cannot shadow the frame's). :class:`FrameReport` keeps that
shape and types what every frame has: its time, its :class:`~sandbox.wire.direction.Direction`
and its :data:`FrameArm`, the envelope's arm (a word of the schema's ``body`` oneof, so a new
arm is a word here unasked, or one of :data:`NOT_ARMS`). A value outside those is refused when
a report is read (:func:`decoded`), at the boundary.

The body's fields depend on the arm, and the report does not interpret them: the core's
records say what a frame meant (:mod:`sandbox.call.turn_records`). So the body is kept as
its JSON text (every character escaped, so any string a hostile report holds survives), an
immutable value: :attr:`FrameReport.fields` hands out a fresh dict each time, and nothing a
reader does to it changes the report. It is written out key for key as before
(:meth:`FrameReport.as_json`), so the report's version and shape are unchanged.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from typing import Any

import msgspec

from sandbox.wire import pb
from sandbox.wire.direction import Direction

#: Words a frame's ``type`` takes that are no arm: an envelope with an arm this build does
#: not know (``unknown``), one with none (``empty``), bytes that were no envelope at all
#: (``undecodable``) (see :func:`sandbox.wire.plain.describe`, :mod:`sandbox.record.export`).
NOT_ARMS = ("unknown", "empty", "undecodable")

_ARMS = [field.name for field in pb.Envelope.DESCRIPTOR.oneofs_by_name["body"].fields]

#: A frame's ``type``: the envelope's arm, read from the schema (see the module doc).
FrameArm = enum.StrEnum(  # type: ignore[misc]  # its words come from the schema
    "FrameArm", {word.upper(): word for word in (*_ARMS, *NOT_ARMS)}
)

#: The keys of a report's frame that are its envelope, not its body's fields.
HEAD = ("t_ms", "dir", "type")


class FrameReport:
    """One frame in a report: ``t_ms``, ``dir``, ``type`` typed, and its body's fields kept
    as they crossed (see the module doc). Immutable, compared and hashed by value."""

    __slots__ = ("_body", "_dir", "_t_ms", "_type")

    _t_ms: int
    _dir: Direction
    _type: enum.StrEnum
    _body: str

    def __init__(self, t_ms: int, direction: Direction, arm: str, body: Mapping[str, Any]) -> None:
        """A frame that crossed at ``t_ms`` going ``direction``, of arm ``arm`` (a
        :data:`FrameArm` word, or a ValueError), with ``body``: the body's fields by their
        names in the report."""
        object.__setattr__(self, "_t_ms", t_ms)
        object.__setattr__(self, "_dir", Direction(direction))
        object.__setattr__(self, "_type", FrameArm(arm))
        object.__setattr__(self, "_body", json.dumps(body, separators=(",", ":")))

    @property
    def t_ms(self) -> int:
        """When it crossed, in ms on the call's clock."""
        return self._t_ms

    @property
    def dir(self) -> Direction:
        """Which way it crossed, from the runtime's side (``in``: from the brain)."""
        return self._dir

    @property
    def type(self) -> enum.StrEnum:
        """The envelope's arm (a :data:`FrameArm`)."""
        return self._type

    @property
    def fields(self) -> dict[str, Any]:
        """The body's fields, by their names in the report: a fresh copy each time."""
        out: dict[str, Any] = json.loads(self._body)
        return out

    def as_json(self) -> dict[str, Any]:
        """The frame as the report's JSON holds it: the envelope's keys, then the body's."""
        return {"t_ms": self._t_ms, "dir": self._dir.value, "type": self._type.value, **self.fields}

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a report's frame cannot be changed ({name})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a report's frame cannot be changed ({name})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FrameReport):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"FrameReport({self.as_json()!r})"

    def _key(self) -> tuple[int, str, str, str]:
        return self._t_ms, self._dir.value, self._type.value, self._body


def decoded(data: object) -> FrameReport:
    """The frame a report's JSON holds; a ValueError or TypeError says what is wrong with it
    (msgspec says where, when it reads a report)."""
    if not isinstance(data, dict):
        raise TypeError(f"a frame is an object, not {type(data).__name__}")
    t_ms, direction, arm = (data.get(key) for key in HEAD)
    if not isinstance(t_ms, int) or isinstance(t_ms, bool):
        raise TypeError(f"a frame's t_ms is a whole number, not {t_ms!r}")
    if direction not in set(Direction):
        raise ValueError(f"a frame's dir is one of {sorted(Direction)}, not {direction!r}")
    if arm not in set(FrameArm):
        raise ValueError(f"a frame's type is an arm of the wire, not {arm!r}")
    return FrameReport(t_ms, Direction(direction), str(arm), _body(data))


def _body(frame: Mapping[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in frame.items() if name not in HEAD}


class _FrameHead(msgspec.Struct, frozen=True):
    """A frame that crossed the wire: when (``t_ms``), which way (``dir``) and its arm
    (``type``), then its body's fields by their wire names."""

    t_ms: int
    dir: Direction
    type: FrameArm


def frame_schema_struct() -> type[msgspec.Struct]:
    """The struct whose JSON Schema is a report frame's envelope (its body's fields, which
    depend on its arm, are more properties of the same object)."""
    return _FrameHead
