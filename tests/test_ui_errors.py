"""What goes wrong is shown in words: a refused version, a brain that drops, a bad URL,
a unit the brain takes back, a brain that raises on a turn and one that never answers.
The report is still written and its path shown."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from ui_brains import REFUSAL, dropping_brain, version_refusing_brain
from ui_rig import (
    SIZE,
    ManualClock,
    advance,
    connected,
    greeted,
    host_of,
    line_texts,
    make_app,
    say,
    unit,
    use_home,
    wait_until,
)

from sandbox.call.effects import CallState
from sandbox.call.units import Fate
from sandbox.sdk import (
    Brain,
    Session,
    Speech,
    SpeechChunk,
    SpeechEnd,
    SpeechStart,
    UserMessage,
    serve,
)
from sandbox.ui.app import SandboxApp


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_home(monkeypatch, tmp_path)


async def test_a_refused_version_is_shown_and_reported() -> None:
    async with version_refusing_brain() as url:
        app = make_app(brain_url=url)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.report is not None, "the report")
            lines = line_texts(app)
            assert f"✖ brain error VERSION: {REFUSAL}" in lines
            assert (
                "■ Call ended: the brain ended the session with a fatal error: "
                f"{REFUSAL}. Outcome: not_reached." in lines
            )
            assert lines[-1] == f"report: {app.report}"
            # The record card: not reached, and why, in words.
            assert lines[-2].startswith("┌ The call record\n│ outcome not_reached: the brain ")
            assert f"refused the session's version: {REFUSAL}" in lines[-2]
            assert any(REFUSAL in str(n.message) for n in app._notifications)
            assert app.status.info.state is CallState.ENDED
    assert app.report is not None
    report = json.loads(app.report.read_text())
    assert report["outcome"] == "not_reached" and report["ended_by"] == "brain_error"
    assert app.problem is None


async def test_a_brain_that_drops_the_socket_ends_the_call_in_words() -> None:
    async with dropping_brain() as url:
        app = make_app(brain_url=url, ms_per_word=20)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.report is not None, "the report")
            lines = line_texts(app)
            assert (
                "■ Call ended: the brain closed the connection (code 1011: brain crashed). "
                "Outcome: " in lines[-3]
            )
            assert lines[-2].startswith("┌ The call record")  # then the report's path
            assert unit(app, 1).fate is Fate.PLAYED
    assert app.report is not None
    assert json.loads(app.report.read_text())["ended_by"] == "brain_closed"


async def test_a_url_that_is_not_a_websocket_is_explained_and_recorded_as_not_reached() -> None:
    app = make_app(brain_url="http://127.0.0.1:1/brain")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.problem is not None, "the failure")
        await pilot.pause()
        assert app.problem == (
            "'http://127.0.0.1:1/brain' is not a WebSocket URL: "
            "use ws://host:port/path or wss://host/path"
        )
        assert f"✖ {app.problem}" in line_texts(app)
        assert app.host is None and app.status.info.state is CallState.ENDED
        assert app.report is not None  # a call never placed is still a call
        report = json.loads(app.report.read_text())
        assert (report["outcome"], report["ended_by"]) == ("not_reached", "dial_failed")
        assert report["end_detail"] == app.problem and report["frames"] == []


async def test_a_unit_the_brain_takes_back_is_marked_cancelled_and_cut() -> None:
    app = make_app(builtin="guardrail", ms_per_word=60)
    async with app.run_test(size=SIZE) as pilot:
        await greeted(pilot)
        await say(pilot, "what is my card number")
        await wait_until(
            pilot,
            lambda: any(u.fate is Fate.CANCELLED for u in host_of(app).core.units),
            "the cancel",
        )
        cancelled = next(u for u in host_of(app).core.units if u.fate is Fate.CANCELLED)
        entry = app.conversation.unit_line(cancelled.speech_id)
        assert entry is not None
        text = entry.text.plain
        assert "cancelled by the brain" in text
        total = len(cancelled.generated.split())
        assert f"✂ {cancelled.cursor.words_heard} of {total} words heard" in text
        assert any(r.type == "speech_cancel" for r in app.wire.records)


class _Fragile(Brain):
    """Greets, then raises on a turn that says "break" and hangs on one that says "wait"."""

    async def greet(self, session: Session) -> str:
        return "Hi."

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        if "break" in msg.text:
            raise RuntimeError("my bug")
        if "wait" in msg.text:
            await asyncio.Event().wait()  # never answers
        yield SpeechStart()
        yield SpeechChunk(f"You said: {msg.text}")
        yield SpeechEnd()


def _after(app: SandboxApp, text: str) -> str:
    """The conversation line right after the one holding ``text``."""
    lines = line_texts(app)
    index = next(i for i, line in enumerate(lines) if text in line)
    return lines[index + 1] if index + 1 < len(lines) else ""


async def test_a_brain_that_raises_is_shown_in_place_and_the_turn_is_over() -> None:
    async with await serve(_Fragile, port=0) as server:
        app = make_app(brain_url=server.url(), ms_per_word=20)
        async with app.run_test(size=SIZE) as pilot:
            await greeted(pilot)
            await say(pilot, "please break")
            error = "brain error INTERNAL: on_user_message raised RuntimeError: my bug"
            await wait_until(pilot, lambda: error in _after(app, "please break"), "the error")
            await wait_until(
                pilot,
                lambda: host_of(app).core.state is CallState.LISTENING,
                "listening again",
                timeout_s=2,  # at once: not the 10 s stall
            )
            assert [r.type for r in app.wire.records if r.dir == "in"][-1] == "error"
            await say(pilot, "and now?")
            await wait_until(
                pilot, lambda: "You said: and now?" in " ".join(line_texts(app)), "the answer"
            )
            assert not any(r.type == "interruption" for r in app.wire.records)


async def test_a_brain_that_never_answers_is_reported_after_10_s() -> None:
    clock = ManualClock()
    async with await serve(_Fragile, port=0) as server:
        app = make_app(brain_url=server.url(), ms_per_word=20, clock=clock)
        async with app.run_test(size=SIZE) as pilot:
            await connected(pilot)
            await advance(pilot, clock, 200)
            await say(pilot, "please wait")
            await wait_until(pilot, lambda: host_of(app).core.turn == 2, "the turn")
            await advance(pilot, clock, 9_900, step=100)
            stall = "the brain has not answered turn 2 after 10 s; the call goes on"
            assert not any(stall in line for line in line_texts(app))
            assert host_of(app).core.state is CallState.THINKING
            await advance(pilot, clock, 200, step=100)
            assert stall in _after(app, "please wait")
            assert host_of(app).core.state is CallState.LISTENING
