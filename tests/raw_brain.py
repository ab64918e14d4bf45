"""A brain that speaks WebSocket by hand, to break the WebSocket layer itself.

A plain asyncio TCP server: it reads the upgrade request, answers ``101`` with the accept
key worked out here, then reads and writes frames byte by byte. It greets, and answers
the caller's first line by breaking the WebSocket protocol in one way (bytes no WebSocket
library would send), so a test sees what the sandbox makes of it.

``python tests/raw_brain.py MODE --port 8765`` serves one; MODE is one of :data:`MODES`.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import hashlib
import struct
import sys

from google.protobuf.message import Message

from sandbox.wire import decode, encode, pb

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
#: What each mode sends for the caller's first line. "deaf" sends nothing but stops
#: answering pings once the session has started; "mute" never answers one at all;
#: "unanswered" reads the upgrade request and never answers it.
MODES: dict[str, bytes] = {
    "opcode": b"\x83\x00",  # FIN, reserved opcode 3, empty
    "utf8": b"\x81\x02\xff\xfe",  # a text frame whose bytes are not UTF-8
    "garbage": b"\x00\xff\x13garbage",  # masked, as a server never sends, then noise
    "deaf": b"",
    "mute": b"",
    "unanswered": b"",
}
GREETING = "Hello, I am a raw brain."
_PING, _PONG, _CLOSE, _BINARY = 0x9, 0xA, 0x8, 0x2


def _frame(opcode: int, payload: bytes) -> bytes:
    """One unmasked, unfragmented frame, as a server sends it."""
    size = len(payload)
    if size < 126:
        head = struct.pack("!BB", 0x80 | opcode, size)
    elif size < 2**16:
        head = struct.pack("!BBH", 0x80 | opcode, 126, size)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 127, size)
    return head + payload


async def _read_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One frame from the client (masked, as RFC 6455 requires); its opcode and payload."""
    head1, head2 = await reader.readexactly(2)
    size = head2 & 0x7F
    if size == 126:
        (size,) = struct.unpack("!H", await reader.readexactly(2))
    elif size == 127:
        (size,) = struct.unpack("!Q", await reader.readexactly(8))
    mask = await reader.readexactly(4) if head2 & 0x80 else b"\0\0\0\0"
    data = await reader.readexactly(size)
    return head1 & 0x0F, bytes(b ^ mask[i % 4] for i, b in enumerate(data))


async def _handshake(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    request = await reader.readuntil(b"\r\n\r\n")
    key = b""
    for line in request.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"sec-websocket-key":
            key = value.strip()
    accept = base64.b64encode(hashlib.sha1(key + _GUID).digest())
    writer.write(
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
        b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n"
    )
    await writer.drain()


def _say(turn: int, speech_id: int, text: str) -> bytes:
    bodies: list[Message] = [
        pb.SpeechStart(speech_id=speech_id, turn_id=turn),
        pb.SpeechChunk(speech_id=speech_id, text=text),
        pb.SpeechEnd(speech_id=speech_id),
    ]
    return b"".join(_frame(_BINARY, encode(body)) for body in bodies)


async def session(mode: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """One session: greet, then break the protocol on the caller's first line."""
    deaf = mode == "mute"
    try:
        if mode == "unanswered":
            await reader.read()  # until the sandbox gives up
            return
        await _handshake(reader, writer)
        while True:
            opcode, payload = await _read_frame(reader)
            if opcode == _PING and not deaf:
                writer.write(_frame(_PONG, payload))
            elif opcode == _CLOSE:
                writer.write(_frame(_CLOSE, payload))
                await writer.drain()
                return
            elif opcode == _BINARY:
                arm = decode(payload).WhichOneof("body")
                if arm == "session_start":
                    writer.write(_say(1, 1, GREETING))
                    deaf = deaf or mode == "deaf"
                elif arm == "user_message":
                    writer.write(MODES[mode])
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass  # the sandbox went away: the session is over
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


async def serve_raw(mode: str, port: int = 0) -> asyncio.Server:
    """Serve ``mode`` on loopback (``port`` 0: a free one); any path, one session a socket."""
    if mode not in MODES:
        raise ValueError(f"no raw brain {mode!r}: one of {', '.join(MODES)}")
    return await asyncio.start_server(
        lambda r, w: session(mode, r, w), "127.0.0.1", port, reuse_address=True
    )


async def _main(mode: str, port: int) -> None:
    server = await serve_raw(mode, port)
    print(f"raw brain {mode} on ws://127.0.0.1:{port}/brain", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("mode", choices=sorted(MODES))
    parser.add_argument("--port", type=int, default=8765)
    parsed = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_main(parsed.mode, parsed.port))
    sys.exit(0)
