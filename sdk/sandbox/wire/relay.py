"""The Cortex relay leg: ``[16-byte session_id][Envelope]`` in one binary message.

One relay socket carries many sessions; the 16 raw bytes of the session's UUID in
front of each envelope say which one. It is the only difference from the inbound
leg, so the envelope after the prefix goes through the same codec.
"""

from __future__ import annotations

import uuid

from sandbox.wire.codec import WireError

#: Where a relay-serving brain listens.
RELAY_PATH = "/agent"

_PREFIX_BYTES = 16


def session_id_bytes(session_id: str) -> bytes:
    """The 16 raw bytes of a session id, which must be a canonical UUID string.

    Canonical means lowercase and hyphenated, as ``str(uuid.uuid4())`` spells it:
    the brain reads the id back from the prefix in that spelling, so any other
    would stop matching ``SessionStart.session_id`` on the far end.
    """
    try:
        parsed = uuid.UUID(session_id)
    except (ValueError, TypeError, AttributeError):
        raise WireError(f"session id {session_id!r} is not a UUID") from None
    if str(parsed) != session_id:
        raise WireError(
            f"session id {session_id!r} is not a canonical UUID (expected {str(parsed)!r})"
        )
    return parsed.bytes


def session_id_str(raw: bytes) -> str:
    """The canonical UUID string of 16 raw session-id bytes."""
    if len(raw) != _PREFIX_BYTES:
        raise WireError(f"a session id is {_PREFIX_BYTES} bytes, got {len(raw)}")
    return str(uuid.UUID(bytes=bytes(raw)))


def frame_relay(session_id: str, payload: bytes) -> bytes:
    """One relay-leg message: the session id's 16 bytes, then the encoded envelope."""
    return session_id_bytes(session_id) + payload


def unframe_relay(message: bytes | bytearray | memoryview | str) -> tuple[str, bytes]:
    """Split one relay-leg message into ``(session_id, envelope bytes)``.

    Raises WireError for a text message or one too short to hold the prefix.
    """
    if isinstance(message, str):
        raise WireError("text WebSocket message: the relay leg carries binary messages only")
    data = bytes(message)
    if len(data) < _PREFIX_BYTES:
        raise WireError(
            f"relay message of {len(data)} bytes is shorter than its "
            f"{_PREFIX_BYTES}-byte session id prefix"
        )
    return session_id_str(data[:_PREFIX_BYTES]), data[_PREFIX_BYTES:]
