"""Envelopes as plain Python values (ints stay ints, enums become names) for records and views."""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from sandbox.wire import frames_pb2 as pb
from sandbox.wire.codec import unknown_arms


def _value(field: FieldDescriptor, value: Any) -> Any:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return to_plain(value)
    if field.type == FieldDescriptor.TYPE_ENUM and field.enum_type is not None:
        known = field.enum_type.values_by_number.get(value)
        return known.name if known is not None else value
    return value


def to_plain(message: Message) -> dict[str, Any]:
    """The fields that are set (or present), by name. Maps become dicts, repeated lists."""
    out: dict[str, Any] = {}
    for field, value in message.ListFields():
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            out[field.name] = {k: _value(value_field, v) for k, v in value.items()}
        elif field.is_repeated:
            out[field.name] = [_value(field, v) for v in value]
        else:
            out[field.name] = _value(field, value)
    return out


def describe(env: pb.Envelope) -> tuple[str, dict[str, Any]]:
    """The envelope's arm name and its body's fields; an arm this build does not know is
    ``unknown`` with its field numbers and size, as it crossed (skipped, never refused)."""
    arm = env.WhichOneof("body")
    if arm is not None:
        return arm, to_plain(getattr(env, arm))
    arms = unknown_arms(env)
    if arms:
        return "unknown", {"arms": list(arms), "bytes": env.ByteSize()}
    return "empty", {}
