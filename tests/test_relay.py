"""The relay leg: a 16-byte session id, then the envelope, in one binary message."""

from __future__ import annotations

import uuid

import pytest

from sandbox.wire import WireError, decode, encode, pb
from sandbox.wire.relay import (
    RELAY_PATH,
    frame_relay,
    session_id_bytes,
    session_id_str,
    unframe_relay,
)

SESSION = "0b7e4a52-3f1d-4c3a-9a53-6a1f2e9d8c10"


def test_relay_path() -> None:
    assert RELAY_PATH == "/agent"


def test_session_id_is_its_uuid_bytes() -> None:
    raw = session_id_bytes(SESSION)
    assert raw == uuid.UUID(SESSION).bytes
    assert len(raw) == 16
    assert session_id_str(raw) == SESSION


def test_frame_then_unframe_round_trips_an_envelope() -> None:
    payload = encode(pb.SpeechChunk(speech_id=7, text="Good question."))
    message = frame_relay(SESSION, payload)
    assert message[:16] == uuid.UUID(SESSION).bytes
    assert message[16:] == payload  # nothing else is added: no length, no tag
    session_id, rest = unframe_relay(message)
    assert session_id == SESSION
    assert decode(rest).speech_chunk.text == "Good question."


def test_unframe_a_message_framed_by_hand() -> None:
    other = uuid.uuid4()
    session_id, rest = unframe_relay(bytearray(other.bytes + b"\x6a\x00"))
    assert session_id == str(other)
    assert decode(rest).HasField("end")


def test_prefix_only_leaves_an_empty_envelope_for_the_codec_to_refuse() -> None:
    session_id, rest = unframe_relay(uuid.UUID(SESSION).bytes)
    assert (session_id, rest) == (SESSION, b"")
    with pytest.raises(WireError, match="empty"):
        decode(rest)


@pytest.mark.parametrize(
    "bad",
    ["", "not-a-uuid", "relay", "0b7e4a52-3f1d-4c3a-9a53", SESSION.upper(), "{" + SESSION + "}"],
)
def test_non_uuid_session_id_is_refused(bad: str) -> None:
    with pytest.raises(WireError, match="UUID"):
        frame_relay(bad, b"\x6a\x00")


@pytest.mark.parametrize("length", [0, 1, 15])
def test_short_message_is_refused(length: int) -> None:
    with pytest.raises(WireError, match="shorter"):
        unframe_relay(b"\x01" * length)


def test_text_message_is_refused() -> None:
    with pytest.raises(WireError, match="text"):
        unframe_relay(SESSION + "payload")


def test_session_id_str_needs_sixteen_bytes() -> None:
    with pytest.raises(WireError, match="16 bytes"):
        session_id_str(b"\x00" * 15)
