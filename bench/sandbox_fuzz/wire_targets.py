"""Fuzz targets for the wire: the envelope codec and the relay leg's framing."""

from __future__ import annotations

import json

from sandbox.check import rules
from sandbox.record.recorder import FrameRecord
from sandbox.wire import pb
from sandbox.wire.codec import WireError, decode, encode
from sandbox.wire.plain import describe
from sandbox.wire.relay import frame_relay, session_id_bytes, session_id_str, unframe_relay
from sandbox_fuzz.draw import Draw
from sandbox_fuzz.envelopes import arbitrary_envelope
from sandbox_fuzz.guard import InvariantBroken


def fuzz_codec(data: bytes) -> None:
    """One WebSocket message: arbitrary bytes (first byte < 128) or a schema-built envelope.

    Decoding refuses in words (WireError) or yields an envelope that reads as a record
    (JSON-ready) and, when this build knows its arm, encodes back to an equal envelope.
    """
    if not data or data[0] < 128:
        _must_refuse_text(data[1:].decode("utf-8", errors="replace"))
        try:
            env = decode(data[1:])
        except WireError:
            return
    else:
        env = arbitrary_envelope(Draw(data[1:]))
    _check_decoded(env)


def fuzz_relay(data: bytes) -> None:
    """One relay-leg message, and a session id as text: each is refused in words or splits
    and joins back to exactly what it was."""
    try:
        session_id, payload = unframe_relay(data)
    except WireError:
        if len(data) >= 16:
            raise InvariantBroken(rules.BINARY_ONLY, f"{len(data)} bytes refused") from None
        return
    if frame_relay(session_id, payload) != data:
        raise InvariantBroken("relay framing", f"{data!r} does not join back from its parts")
    spelled = data.decode("utf-8", errors="replace")
    try:
        raw = session_id_bytes(spelled)
    except WireError:
        return
    if session_id_str(raw) != spelled:
        raise InvariantBroken("relay framing", f"session id {spelled!r} reads back differently")


def _must_refuse_text(text: str) -> None:
    try:
        decode(text)
    except WireError:
        return
    raise InvariantBroken(rules.BINARY_ONLY, "a text message decoded")


def _check_decoded(env: pb.Envelope) -> None:
    arm, fields = describe(env)
    json.dumps(FrameRecord.of(0, "in", arm, fields).as_json())  # records are JSON
    if env.WhichOneof("body") is None:
        return  # an arm this build does not know: recorded and skipped, never re-sent
    again = decode(encode(env))
    if again != env:
        raise InvariantBroken("codec", f"{arm} does not survive encode then decode")
