"""The Voqalize wire: generated schema, envelope codec, relay framing, tokens, dialing."""

from sandbox.wire import frames_pb2 as pb
from sandbox.wire.codec import WIRE_VERSION, WireError, body_name, decode, encode, envelope

__all__ = ["WIRE_VERSION", "WireError", "body_name", "decode", "encode", "envelope", "pb"]
