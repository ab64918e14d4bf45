"""A brain that says goodbye and ends at once, through ``sandbox call`` over a real WebSocket:
the call ends as the brain's End (not as a brain that failed), the goodbye is heard whole,
and an SDK brain still gets the goodbye's Finalize (the socket stays open after ``end()``
until Voqalize closes it). A brain written against the wire that sends End and closes its
socket at once gets the same report; its Finalize is recorded, with nothing to carry it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from brain_process import reported_call
from fault_brains import say, served
from ui_brains import in_thread
from websockets.asyncio.server import ServerConnection

from sandbox.sdk import (
    Brain,
    Finalize,
    Session,
    Speech,
    SpeechChunk,
    SpeechEnd,
    SpeechStart,
    UserMessage,
    serve,
)
from sandbox.wire import decode, encode, pb
from sandbox.wire.codec import envelope
from sandbox.wire.tokens import load_or_create_keys

GREETING = "Hello, how can I help?"
GOODBYE = "Thanks for calling, goodbye!"
#: A caller who says enough to make it a conversation, then waits far longer than the
#: goodbye takes: the brain, not the caller, ends the call.
CALLER = "ms_per_word = 30\n[[step]]\ntype = 'That is all I needed today, thank you'\n"
CALLER += "[[step]]\nsilence_ms = 60000\n"


class SaysGoodbyeAndEnds(Brain):
    """Answers the caller with the goodbye and ends the call in the same breath."""

    def __init__(self, heard: list[str]) -> None:
        self.heard = heard

    async def greet(self, session: Session) -> str:
        return GREETING

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        yield SpeechStart()
        yield SpeechChunk(GOODBYE)
        yield SpeechEnd()
        session.end()

    async def on_finalize(self, session: Session, fin: Finalize) -> None:
        self.heard.append(fin.heard)


async def ends_then_closes(ws: ServerConnection) -> None:
    """Raw wire: greets, answers the caller with the goodbye, sends End and closes at once."""
    start = decode(await ws.recv()).session_start
    await say(ws, 1, start.turn_id, GREETING)
    async for message in ws:
        env = decode(message)
        if env.HasField("user_message"):
            await say(ws, 2, env.user_message.turn_id, GOODBYE)
            await ws.send(encode(envelope(pb.End())))
            await ws.close()
            return


def _assert_ended_by_the_brain(report: dict[str, Any]) -> None:
    assert report["ended_by"] == "brain"
    record = report["record"]
    assert record["outcome"] == "completed" and record["reason"] == "", record
    goodbye = report["units"][-1]
    assert goodbye["generated"] == goodbye["heard"] == GOODBYE, goodbye
    assert not goodbye["interrupted"]


def _finalized(report: dict[str, Any]) -> list[str]:
    return [f["heard_text"] for f in report["frames"] if f["type"] == "finalize"]


def test_an_sdk_brain_ending_after_its_goodbye_hears_its_finalize(tmp_path: Path) -> None:
    home = tmp_path / "home"
    keys = load_or_create_keys(home / "keys")
    heard: list[str] = []

    @contextlib.asynccontextmanager
    async def serving() -> AsyncIterator[str]:
        running = await serve(lambda: SaysGoodbyeAndEnds(heard), public_key_pem=keys.public_pem)
        async with running:
            yield running.url()

    with in_thread(serving) as url:
        done, report = reported_call(tmp_path, home, CALLER, "--brain", url, "--audio", "sim")
    assert done.returncode == 0, done.stdout + done.stderr
    _assert_ended_by_the_brain(report)
    assert _finalized(report) == [GREETING, GOODBYE]
    assert heard == [GREETING, GOODBYE]  # the brain's on_finalize ran for the goodbye


def test_a_raw_brain_sending_end_then_closing_is_ended_by_the_brain(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with served(ends_then_closes) as url:
        done, report = reported_call(tmp_path, home, CALLER, "--brain", url, "--audio", "sim")
    assert done.returncode == 0, done.stdout + done.stderr
    _assert_ended_by_the_brain(report)
    assert _finalized(report) == [GREETING]  # the goodbye's found its socket closed
