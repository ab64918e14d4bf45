"""Arbitrary envelopes: every arm, every field, filled from fuzz bytes by the schema.

The fill is driven by the protobuf descriptors, so a field added to the schema is fuzzed
without a change here. Numbers lean small (a speech id or turn a session really uses)
but reach the type's limits; enums take unknown values too; strings come from words a
call uses, JSON an RTVI frame carries, arbitrary text, or a size past the RTVI limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from sandbox.wire import pb
from sandbox.wire.catalog import RTVI_DATA_LIMIT
from sandbox_fuzz.draw import Draw


def _fields(fields: Sequence[object]) -> tuple[FieldDescriptor, ...]:
    # The stubs type a descriptor's fields as the pure-Python or the upb class; both
    # have one interface.
    return cast("tuple[FieldDescriptor, ...]", tuple(fields))


_ARMS = _fields(pb.Envelope.DESCRIPTOR.oneofs_by_name["body"].fields)
_WORDS = (
    "",
    "Hello",
    " there.",
    "alpha ",
    "beta, ",
    " gamma",
    "four five six ",
    "é ü 中文 ",
    '{"content": "hi"}',
    '{"text": 5}',
    "[1, 2]",
    '"just a string"',
    "{",
    "null",
)
_RANGES: dict[int, tuple[int, int]] = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_ENUM: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}
_FLOATS = (0.0, 1.5, -1.0, 1e300, float("inf"), float("nan"))
_DEPTH = 4


def arbitrary_envelope(draw: Draw) -> pb.Envelope:
    """An envelope with any arm (a brain's or Voqalize's own) and arbitrary fields."""
    env = pb.Envelope()
    arm = draw.pick(_ARMS)
    fill(getattr(env, arm.name), draw)
    if not env.HasField(arm.name):  # an arm with no fields set is still that arm
        getattr(env, arm.name).SetInParent()
    return env


def fill(message: Message, draw: Draw, depth: int = 0) -> None:
    """Set a draw-chosen subset of ``message``'s fields to arbitrary values."""
    for field in _fields(message.DESCRIPTOR.fields):
        if not draw.flip():
            continue
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            entries = getattr(message, field.name)
            key_field, value_field = _fields(field.message_type.fields)
            for _ in range(draw.number(0, 3)):
                key = _scalar(key_field, draw)
                if value_field.message_type is None:
                    entries[key] = _scalar(value_field, draw)
                else:
                    fill(entries[key], draw, depth + 1)
        elif field.is_repeated:
            items = getattr(message, field.name)
            for _ in range(draw.number(0, 3)):
                if field.message_type is not None:
                    if depth < _DEPTH:
                        fill(items.add(), draw, depth + 1)
                else:
                    items.append(_scalar(field, draw))
        elif field.message_type is not None:
            if depth < _DEPTH:
                child = getattr(message, field.name)
                child.SetInParent()
                fill(child, draw, depth + 1)
        else:
            setattr(message, field.name, _scalar(field, draw))


def _scalar(field: FieldDescriptor, draw: Draw) -> object:
    kind = field.type
    if kind == FieldDescriptor.TYPE_BOOL:
        return draw.flip()
    if kind == FieldDescriptor.TYPE_STRING:
        return _string(draw)
    if kind == FieldDescriptor.TYPE_BYTES:
        return draw.bytes(64)
    if kind in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        return draw.pick(_FLOATS)
    lo, hi = _RANGES[kind]
    if draw.number(0, 3):  # mostly the small numbers a session really uses
        return max(lo, min(hi, draw.number(0, 7)))
    return draw.number(lo, hi)


def _string(draw: Draw) -> str:
    choice = draw.number(0, 15)
    if choice == 0:
        return draw.text(200)
    if choice == 1:
        return "x" * (RTVI_DATA_LIMIT + draw.number(-2, 2))
    return "".join(draw.pick(_WORDS) for _ in range(draw.number(0, 4)))
