"""The wire contract (docs/wire.md), point by point, through brains written straight against
the wire, over a real socket to the real runtime (the call core behind VoqalizeDriver's real
WebSocket)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Any, ClassVar

import pytest
from fixtures_bad_brains import OpensSilentUnits, WireBrain, WireServer, serve_wire_brain
from websockets.asyncio.client import ClientConnection

from sandbox.brains.echo import Echo
from sandbox.check import Status, check_brain
from sandbox.harness import VoqalizeDriver
from sandbox.paths import HOME_ENV
from sandbox.sdk import BrainServer, serve
from sandbox.wire import decode, encode, pb
from sandbox.wire.dial import dial
from sandbox.wire.tokens import KeyPair, load_or_create_keys, mint_token

#: An envelope arm this build does not know (field 17, a small body): a newer peer's frame.
NEWER_ARM = bytes([0x8A, 0x01, 0x02, 0x08, 0x01])


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(HOME_ENV, str(tmp_path))


async def wire_call(
    brain: type[WireBrain], caller: Callable[[VoqalizeDriver], Coroutine[Any, Any, None]]
) -> VoqalizeDriver:
    """One call from the real runtime to ``brain`` over a real socket; returns the driver."""
    server: WireServer = await serve_wire_brain(brain)
    try:
        driver = VoqalizeDriver(brain_url=f"ws://127.0.0.1:{server.port}/brain")
        async with driver:
            await caller(driver)
        return driver
    finally:
        await server.close()


def errors_sent(driver: VoqalizeDriver) -> list[str]:
    return [f"{e.code}: {e.message}" for e in driver.errors if e.dir == "out"]


# ------------------------------------------------- 1. a newer arm is skipped


class SendsNewerArm(WireBrain):
    """Sends a frame added later in the version before greeting."""

    async def on_start(self) -> None:
        await self.ws.send(NEWER_ARM)
        await super().on_start()


async def test_runtime_skips_a_newer_arm_and_records_it() -> None:
    async def greeted(driver: VoqalizeDriver) -> None:
        await driver.settle()

    driver = await wire_call(SendsNewerArm, greeted)
    assert errors_sent(driver) == []
    (newer,) = [f for f in driver.frames if f.dir == "in" and f.type == "unknown"]
    assert newer.fields == {"arms": [17], "bytes": len(NEWER_ARM)}
    assert driver.heard[0].strip() == WireBrain.greeting  # and the call went on


@pytest.fixture
async def sdk_server(tmp_path: Path) -> AsyncIterator[tuple[BrainServer, KeyPair]]:
    keys = load_or_create_keys(tmp_path / "keys")
    async with await serve(Echo, public_key_pem=keys.public_pem) as running:
        yield running, keys


async def test_the_sdk_skips_a_newer_arm_too(sdk_server: tuple[BrainServer, KeyPair]) -> None:
    server, keys = sdk_server
    session = "3f0c2a8e-5d41-4b7a-9e0f-1c2d3e4f5a6b"
    ws: ClientConnection = await dial(server.url(), session, mint_token(keys, session))
    async with ws:
        start = pb.SessionStart(turn_id=1, session_id=session, wire_version=3)
        await ws.send(encode(start))
        await ws.send(NEWER_ARM)
        await ws.send(encode(pb.UserMessage(turn_id=2, text="hello")))
        arms: list[str | None] = []
        while "speech_end" not in arms or arms.count("speech_end") < 2:
            arms.append(decode(await asyncio.wait_for(ws.recv(), 5)).WhichOneof("body"))
    assert "error" not in arms  # greeting and the answer to turn 2, nothing else


# ------------------------------------- 2. TurnStep is never acknowledged


class StepsForUnknownTurn(WireBrain):
    """Reports a step for a turn that was never minted, then greets."""

    async def on_start(self) -> None:
        await self.send(pb.TurnStep(turn_id=99, kind="tool", name="lookup", duration_ms=5))
        await super().on_start()


async def test_a_turn_step_for_an_unknown_turn_gets_nothing_back_and_is_flagged() -> None:
    async def greeted(driver: VoqalizeDriver) -> None:
        await driver.settle()

    driver = await wire_call(StepsForUnknownTurn, greeted)
    assert errors_sent(driver) == []
    (step,) = driver.report()["steps"]
    assert step["turn_id"] == 99 and step["unknown_turn"] is True


# ----------------------------- 5. End with a bracket open ends the call


class EndsMidUnit(WireBrain):
    """Answers with an open unit, then hangs up without SpeechEnd."""

    async def on_message(self, turn: int, text: str) -> None:
        sid = self.mint()
        await self.send(pb.SpeechStart(speech_id=sid, turn_id=turn))
        await self.send(pb.SpeechChunk(speech_id=sid, text="That is all, goodbye."))
        await self.send(pb.End())


async def test_a_brains_end_with_a_bracket_open_ends_the_call_soon() -> None:
    async def ask(driver: VoqalizeDriver) -> None:
        await driver.say("Are we done?")
        await asyncio.wait_for(_ended(driver), 10)

    driver = await wire_call(EndsMidUnit, ask)
    assert driver.ended is not None and driver.ended.ended_by == "brain"
    assert driver.heard[-1] == "That is all, goodbye."


async def _ended(driver: VoqalizeDriver) -> None:
    while driver.ended is None:
        await asyncio.sleep(0.01)


# ------------------------------ 6. a caller's turn reaches the brain once


class Records(WireBrain):
    """Keeps every UserMessage it was sent, verbatim."""

    heard: ClassVar[list[str]] = []

    async def on_message(self, turn: int, text: str) -> None:
        Records.heard.append(text)
        await super().on_message(turn, text)


async def test_a_resumed_turn_reaches_the_brain_once_verbatim() -> None:
    Records.heard = []

    async def resume(driver: VoqalizeDriver) -> None:
        await driver.say("I'd like to book")
        await driver.barge_in("a table for two tonight", after_words=0)
        await driver.settle()

    await wire_call(Records, resume)
    assert Records.heard == ["I'd like to book", "a table for two tonight"]


# ------------------------------------------- 7. silent brackets are legal


def test_check_passes_a_brain_with_silent_brackets_and_says_what_it_cannot_see() -> None:
    async def run() -> list[Any]:
        server = await serve_wire_brain(OpensSilentUnits)
        try:
            return list(await check_brain(f"ws://127.0.0.1:{server.port}/brain"))
        finally:
            await server.close()

    results = asyncio.run(run())
    assert Status.FAIL not in [r.status for r in results], results
    notes = [n for r in results for n in r.notes]
    assert any("legal on the wire" in n and "VoqalizeDriver" in n for n in notes)
