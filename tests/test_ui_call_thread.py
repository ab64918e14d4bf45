"""The app's call runs on a thread and event loop of its own (sandbox.ui.call_thread): what
the UI tells it runs there in order, a cancelled call still finishes, and a UI that cannot
draw for a second does not hold the call up."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest
from ui_rig import SIZE, greeted, host_of, make_app, use_home

from sandbox.ui.call_thread import CallThread


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_home(monkeypatch, tmp_path / "home")


async def test_told_actions_run_on_the_calls_thread_in_order_and_questions_answer() -> None:
    thread = CallThread()
    seen: list[tuple[str, str]] = []
    started = threading.Event()

    def note(what: str) -> None:
        seen.append((what, threading.current_thread().name))

    async def work() -> None:
        started.set()
        while len(seen) < 3:
            await asyncio.sleep(0.01)

    async def question() -> str:
        return threading.current_thread().name

    running = asyncio.ensure_future(thread.run(work))
    await asyncio.to_thread(started.wait, 5)
    for what in "abc":
        thread.tell(note, what)
    assert await thread.ask(question()) == "call"
    await asyncio.wait_for(running, 5)
    assert seen == [("a", "call"), ("b", "call"), ("c", "call")]
    thread.tell(note, "d")  # the call is over: told nothing, and no error
    with pytest.raises(RuntimeError, match="no call is running"):
        await thread.ask(question())


async def test_a_cancelled_call_is_cancelled_on_its_thread_and_its_finally_runs() -> None:
    thread = CallThread()
    finished = threading.Event()
    started = threading.Event()

    async def work() -> None:
        try:
            started.set()
            await asyncio.sleep(60)
        finally:
            await asyncio.sleep(0.05)  # the report is written after awaiting the audio's close
            finished.set()

    running = asyncio.ensure_future(thread.run(work))
    await asyncio.to_thread(started.wait, 5)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert finished.is_set()


async def test_a_ui_that_cannot_draw_does_not_hold_the_call_up() -> None:
    app = make_app(ms_per_word=20)
    async with app.run_test(size=SIZE) as pilot:
        await greeted(pilot)
        host = host_of(app)
        app.runner.tell(host.caller_turn, "What are your opening hours?")
        time.sleep(1.0)  # the UI's loop is held from the moment it told the call
        held_until = host.now()
        answer = host.core.unit(2)
        # The turn went out, the brain's answer came in and its words played, all while the
        # UI could neither draw nor handle a message.
        assert answer is not None and answer.heard, held_until
        assert host.core.ledger.timelines[2]["first_chunk"] < held_until
