"""One envelope per binary WebSocket message, and nothing around it."""

from __future__ import annotations

from typing import Any

from google.protobuf.message import DecodeError
from google.protobuf.message import Message as _Message
from google.protobuf.unknown_fields import UnknownFieldSet

from sandbox.wire import frames_pb2 as pb

#: The wire version this build speaks. Refusal is on !=, never on <.
WIRE_VERSION = 3

_ARM_BY_TYPE: dict[str, str] = {
    field.message_type.name: field.name
    for field in pb.Envelope.DESCRIPTOR.oneofs_by_name["body"].fields
    if field.message_type is not None
}


class WireError(ValueError):
    """A message that is not one well-formed envelope. The text says what was wrong."""


def envelope(body: _Message) -> pb.Envelope:
    """Wrap one body message (e.g. ``pb.SpeechStart(...)``) in an Envelope."""
    arm = _ARM_BY_TYPE.get(body.DESCRIPTOR.name)
    if arm is None:
        raise WireError(f"{body.DESCRIPTOR.name} is not an envelope arm")
    env = pb.Envelope()
    getattr(env, arm).CopyFrom(body)
    return env


def encode(env: pb.Envelope | _Message) -> bytes:
    """Serialize an envelope (or a bare body, wrapped first) for one binary message."""
    if not isinstance(env, pb.Envelope):
        env = envelope(env)
    if env.WhichOneof("body") is None:
        raise WireError("an envelope must carry a body")
    return env.SerializeToString()


def decode(message: bytes | bytearray | memoryview | str) -> pb.Envelope:
    """Parse one WebSocket message into an Envelope.

    An envelope whose body arm this build does not know (a frame added within the version,
    from a newer peer) decodes with no body: see :func:`unknown_arms`; it is skipped, not
    refused. Raises WireError for a text message, bytes that are not an Envelope, or an
    envelope with no body at all.
    """
    if isinstance(message, str):
        raise WireError("text WebSocket message: the wire carries binary messages only")
    env = pb.Envelope()
    try:
        env.ParseFromString(bytes(message))
    except DecodeError as exc:
        raise WireError(f"undecodable envelope ({len(message)} bytes): {exc}") from None
    if env.WhichOneof("body") is None and not unknown_arms(env):
        raise WireError("empty envelope: no body")
    return env


def unknown_arms(env: pb.Envelope) -> tuple[int, ...]:
    """The field numbers an envelope carries that this build does not know (arms a newer
    peer added); empty for an envelope of this build."""
    fields = UnknownFieldSet(env)
    return tuple(sorted({fields[i].field_number for i in range(len(fields))}))


def body_name(env: pb.Envelope) -> str:
    """The name of the envelope's body arm, e.g. ``"speech_chunk"``."""
    name: str | None = env.WhichOneof("body")
    if name is None:
        raise WireError("empty envelope: no body")
    return name


def body(env: pb.Envelope) -> Any:
    """The body message of an envelope."""
    return getattr(env, body_name(env))
