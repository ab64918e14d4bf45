"""A real local HTTP server that speaks the chat-completions streaming protocol (server-sent
events of ``chat.completion.chunk``) with scripted replies, tool calls included: the LLM
brain's tests run against it with no network and no model.

A reply is chosen by the first rule whose words appear in the conversation's last message
(a user's line, or a tool's result); each is a list of text pieces, or a tool call. Every
request is kept (its messages, how many pieces went out, and whether the client closed the
stream before the end), so a test can prove a barge-in closed the model's request.
"""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolCall:
    """A scripted tool call: the model asks for ``name`` with ``arguments``."""

    name: str
    arguments: dict[str, Any]


#: A scripted reply: text pieces streamed one by one, or one tool call.
Reply = list[str] | ToolCall


@dataclass
class Request:
    """One chat-completions request the server answered."""

    messages: list[dict[str, Any]]
    pieces_sent: int = 0
    pieces: int = 0
    #: The client closed the stream before its last piece (a barge-in, a cancelled task).
    closed_early: bool = False


@dataclass
class FakeLlm:
    """Serves ``rules`` (words in the last message -> reply) on loopback; ``url`` is its
    OpenAI base URL. ``gap_s`` between pieces, so a reply takes time to stream."""

    rules: list[tuple[str, Reply]]
    gap_s: float = 0.0
    requests: list[Request] = field(default_factory=list)
    url: str = ""
    _loop: asyncio.AbstractEventLoop | None = None
    _server: asyncio.Server | None = None

    def start(self) -> FakeLlm:
        """Serve from a thread of its own; returns once it listens."""
        ready = threading.Event()

        def run() -> None:
            self._loop = asyncio.new_event_loop()
            self._server = self._loop.run_until_complete(
                asyncio.start_server(self._answer, "127.0.0.1", 0)
            )
            port = self._server.sockets[0].getsockname()[1]
            self.url = f"http://127.0.0.1:{port}/v1"
            ready.set()
            self._loop.run_forever()

        threading.Thread(target=run, name="fake-llm", daemon=True).start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        """Stop serving."""
        loop, server = self._loop, self._server
        if loop is not None and server is not None:
            loop.call_soon_threadsafe(server.close)
            loop.call_soon_threadsafe(loop.stop)

    def reply_for(self, messages: list[dict[str, Any]]) -> Reply:
        """The first rule whose words the last message holds (a polite default else)."""
        last = str(messages[-1].get("content") or "").lower() if messages else ""
        return next((r for words, r in self.rules if words in last), ["Sorry, say again?"])

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            body = json.loads(await reader.readexactly(length))
        except (asyncio.IncompleteReadError, StopIteration, ValueError):
            writer.close()
            return
        request = Request(body.get("messages", []))
        self.requests.append(request)
        gone = asyncio.ensure_future(reader.read())  # b"" once the client closes its end
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
        )
        events = _events(self.reply_for(request.messages))
        request.pieces = len(events)
        for event in events:
            if gone.done():
                request.closed_early = True
                break
            writer.write(b"data: " + json.dumps(event).encode() + b"\n\n")
            await writer.drain()
            request.pieces_sent += 1
            await asyncio.sleep(self.gap_s)
        else:
            writer.write(b"data: [DONE]\n\n")
        gone.cancel()
        writer.close()


#: A long answer a barge-in can cut: 39 clauses.
LONG = [f"Class number {n} is on at {n} o'clock, " for n in range(1, 40)]
#: What the scripted model answers the example's caller scripts, by words in the
#: conversation's last message (the second booking hop's is the tool's result).
REPLIES: list[tuple[str, Reply]] = [
    ("hours", ["We're open nine to five, ", "Monday to Saturday."]),
    ("booking", ToolCall("check_booking", {"name": "Ada"})),
    ("pottery", ["You're booked for ", "Thursday's pottery class at six."]),
    ("refund", ["Of course, ", "I guarantee a full refund."]),
    ("everything", LONG),
]


def _events(reply: Reply) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects of one reply, the finishing one last."""
    if isinstance(reply, ToolCall):
        call = {
            "index": 0,
            "id": "call_1",
            "type": "function",
            "function": {"name": reply.name, "arguments": json.dumps(reply.arguments)},
        }
        return [_chunk({"role": "assistant", "tool_calls": [call]}), _chunk({}, "tool_calls")]
    return [_chunk({"content": piece}) for piece in reply] + [_chunk({}, "stop")]


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "fake",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
