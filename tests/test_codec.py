"""One envelope per binary message: every arm round-trips, anything else is a WireError."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from sandbox.wire import WireError, body_name, decode, encode, envelope, pb
from sandbox.wire.codec import body, unknown_arms
from sandbox.wire.plain import describe

if TYPE_CHECKING:
    # The stubs type a message's descriptors as either backend's classes.
    from google._upb._message import FieldDescriptor as UpbFieldDescriptor

ARMS = [field.name for field in pb.Envelope.DESCRIPTOR.oneofs_by_name["body"].fields]


def _scalar(field: FieldDescriptor | UpbFieldDescriptor, n: int) -> object:
    """A representative non-default value for a scalar field; ``n`` varies it."""
    if field.enum_type is not None:
        numbers = [v.number for v in field.enum_type.values if v.number != 0]
        return numbers[n % len(numbers)]
    if field.cpp_type == FieldDescriptor.CPPTYPE_STRING:
        text = f"{field.name} é {n}"
        return text.encode() if field.type == FieldDescriptor.TYPE_BYTES else text
    if field.cpp_type == FieldDescriptor.CPPTYPE_BOOL:
        return True
    if field.cpp_type in (FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE):
        return 1.5 + n
    if field.cpp_type in (FieldDescriptor.CPPTYPE_UINT64, FieldDescriptor.CPPTYPE_INT64):
        return 2**40 + n  # beyond 32 bits, so a narrowed field would show
    return 7 + n


def _populate(msg: Message, depth: int = 0) -> None:
    """Set every field of ``msg`` (one member per oneof), recursing into messages.

    Driven by the descriptor, so a field or arm added to the schema is covered
    without touching this test.
    """
    for field in msg.DESCRIPTOR.fields:
        oneof = field.containing_oneof
        if oneof is not None and oneof.fields[0] is not field:
            continue  # a oneof holds one member (an optional field is a oneof of itself)
        value = getattr(msg, field.name)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            key_field, value_field = field.message_type.fields
            for n in range(2):
                key = _scalar(key_field, n)
                if value_field.message_type is not None:
                    _populate(value[key], depth + 1)
                else:
                    value[key] = _scalar(value_field, n)
        elif field.is_repeated:
            for n in range(2):
                if field.message_type is not None:
                    _populate(value.add(), depth + 1)
                else:
                    value.append(_scalar(field, n))
        elif field.message_type is not None:
            value.SetInParent()
            _populate(value, depth + 1)
        else:
            setattr(msg, field.name, _scalar(field, depth))


def _full_envelope(arm: str) -> pb.Envelope:
    env = pb.Envelope()
    getattr(env, arm).SetInParent()  # End has no fields: the arm itself is the content
    _populate(getattr(env, arm))
    return env


@pytest.mark.parametrize("arm", ARMS)
def test_every_arm_round_trips(arm: str) -> None:
    env = _full_envelope(arm)
    decoded = decode(encode(env))
    assert decoded == env
    assert body_name(decoded) == arm
    for field in getattr(env, arm).DESCRIPTOR.fields:
        if field.has_presence:  # optional and message fields: presence survives too
            was_set = getattr(env, arm).HasField(field.name)
            assert body(decoded).HasField(field.name) == was_set, field.name


def test_arms_list_is_the_whole_schema() -> None:
    # 16 arms at wire version 3; the parametrization above follows the descriptor.
    assert len(ARMS) == 16
    assert ARMS[0] == "session_start" and ARMS[-1] == "turn_step"


def test_populated_fields_cover_optional_maps_and_repeated() -> None:
    step = _full_envelope("turn_step").turn_step
    assert step.HasField("first_output_ms") and len(step.counts) == 2
    start = _full_envelope("session_start").session_start
    assert len(start.capabilities) == 2
    rtvi = _full_envelope("rtvi").rtvi
    assert rtvi.HasField("id") and rtvi.HasField("turn_id")
    config = _full_envelope("request").request.configure
    assert config.tts.HasField("voice") and config.stt.HasField("patience")
    assert config.idle.HasField("timeout_ms")


def test_unset_optional_stays_unset() -> None:
    env = envelope(pb.Request(request_id=1, configure=pb.Config(idle=pb.IdleConfig())))
    decoded = decode(encode(env))
    assert decoded.request.configure.HasField("idle")
    assert not decoded.request.configure.idle.HasField("timeout_ms")
    assert not decoded.request.configure.HasField("tts")


def test_text_message_is_refused() -> None:
    with pytest.raises(WireError, match="text"):
        decode(encode(pb.End()).decode("latin-1"))


@pytest.mark.parametrize("garbage", [b"\xff\xff\xff", b"\x0a\x05ab", b"\x42\x7f"])
def test_garbage_is_refused(garbage: bytes) -> None:
    with pytest.raises(WireError):
        decode(garbage)


def test_an_arm_added_within_the_version_decodes_to_be_skipped() -> None:
    """Capabilities: "A frame added within a version is skipped, not refused." Field 99, wire type 2
    (length-delimited), carrying a small body: a newer peer's arm."""
    tag = (99 << 3) | 2
    unknown = bytes([0x80 | (tag & 0x7F), tag >> 7, 0x02, 0x08, 0x01])
    env = decode(unknown)
    assert env.WhichOneof("body") is None
    assert unknown_arms(env) == (99,)
    assert describe(env) == ("unknown", {"arms": [99], "bytes": len(unknown)})
    assert unknown_arms(decode(encode(pb.End()))) == ()


def test_empty_message_is_refused() -> None:
    with pytest.raises(WireError, match="empty"):
        decode(b"")


def test_encode_wraps_a_bare_body() -> None:
    chunk = pb.SpeechChunk(speech_id=7, text="Good question.")
    assert encode(chunk) == encode(envelope(chunk))
    assert decode(encode(chunk)).speech_chunk == chunk
    assert body_name(decode(encode(pb.End()))) == "end"


def test_encode_refuses_what_is_not_an_envelope() -> None:
    with pytest.raises(WireError, match="must carry a body"):
        encode(pb.Envelope())
    with pytest.raises(WireError, match="not an envelope arm"):
        encode(pb.Config())
