"""The brain's reload notice (what ``sandbox brain --reload`` tells each call in progress) in
a saved call: its shape on the wire, and the mark each reader of the record puts at its
moment (``sessions show``, the Markdown export, the replay's conversation, the page), the
file and class names shown as data in each. The whole path, a real ``--reload`` mid-call,
is ``tests/test_reload_marked_cli.py``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from browser import browser, console_errors, screenshot
from hostile_text_brain import HOSTILE
from selenium import webdriver
from selenium.webdriver.common.by import By
from session_rig import recorded_call
from ui_rig import SIZE, ManualClock, line_texts, make_app, say, use_home, wait_until

from sandbox.call.effects import CallState
from sandbox.paths import HOME_ENV
from sandbox.record.export import session_report
from sandbox.record.markdown import session_markdown
from sandbox.record.page.build import session_page
from sandbox.record.page.data import page_data
from sandbox.record.plain_text import visible
from sandbox.record.recorder import FrameRecord
from sandbox.record.reload_notice import RTVI_TYPE, ReloadNotice, notice_in
from sandbox.record.session_text import session_text
from sandbox.record.store import SessionStore
from sandbox.record.stored_call import StoredCall
from sandbox.replay.source import open_recording
from sandbox.replay.timeline import Replayer
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
from sandbox.ui.replay_app import ReplayApp
from sandbox.ui.widgets.conversation import Line
from sandbox.wire import pb
from sandbox.wire.codec import envelope
from sandbox.wire.plain import describe
from sandbox.wire.tokens import load_or_create_keys

__all__ = ["browser"]  # the fixture, used by name

MOVED = ReloadNotice("mymodule.py", "Greeter", moved=True)
#: A brain's names are its text: markup, terminal escapes, forged lines, a bidi override.
KEPT = ReloadNotice(f"{HOSTILE}.py", "Greeter[/]", moved=False)
MOVED_WORDS = "brain reloaded: mymodule.py, serving Greeter"
KEPT_WORDS = (
    f"brain reloaded: {visible(HOSTILE)}.py, serving Greeter[/]; this call keeps the old code "
    "(its class could not be swapped)"
)
NUMBERS = ("one", "two", "three")
SCRIPT = """
ms_per_word = 10
[[step]]
say = "one"
[[step]]
say = "two"
[[step]]
say = "three"
"""


class ToldOfReloads(Brain):
    """Answers each turn; before answering "two" and "three" it sends the notice as
    ``sandbox brain --reload`` does, so each lands between a caller line and its answer."""

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        notice = {"two": MOVED, "three": KEPT}.get(msg.text)
        if notice is not None:
            session.send_rtvi(RTVI_TYPE, notice.data())
        yield SpeechStart()
        yield SpeechChunk(f"You said: {msg.text}")
        yield SpeechEnd()


async def _record() -> str:
    server = await serve(ToldOfReloads, public_key_pem=load_or_create_keys().public_pem)
    try:
        host = await recorded_call(SCRIPT, brain_url=server.url())
    finally:
        await server.close()
    return host.core.session_id


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A call recorded through the real runtime, told of two reloads; its session id."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_ENV, str(tmp_path_factory.mktemp("home")))
        yield asyncio.run(_record())


def _crossed(direction: str, rtvi_type: int, data: str) -> dict[str, object]:
    """An RTVI frame as the report keeps it."""
    arm, fields = describe(envelope(pb.RTVIFrame(type=rtvi_type, data=data)))  # type: ignore[arg-type]
    return FrameRecord.of(1200, direction, arm, fields).as_json()


def test_the_notice_is_read_back_from_the_frame_it_crosses_as() -> None:
    data = json.dumps(MOVED.data())
    assert json.loads(data) == {
        "voqalize_sandbox": "brain-reloaded",
        "file": "mymodule.py",
        "serving": "Greeter",
        "moved": True,
    }
    server_message = pb.RTVI_TYPE_SERVER_MESSAGE
    assert notice_in(_crossed("in", server_message, data)) == MOVED
    assert notice_in(_crossed("in", server_message, json.dumps(KEPT.data()))) == KEPT
    assert MOVED.words == MOVED_WORDS and visible(KEPT.words) == KEPT_WORDS
    not_one = {
        "from the app": _crossed("out", pb.RTVI_TYPE_CLIENT_MESSAGE, data),
        "another type": _crossed("in", pb.RTVI_TYPE_UI_COMMAND, data),
        "another notice": _crossed("in", server_message, data.replace("brain-reloaded", "x")),
        "no moved": _crossed("in", server_message, data.replace('"moved"', '"still"')),
        "moved a word": _crossed("in", server_message, data.replace("true", '"yes"')),
        "a list": _crossed("in", server_message, f"[{data}]"),
        "not JSON": _crossed("in", server_message, data[:-1]),
        "nested deep": _crossed("in", server_message, "[" * 100_000 + '"brain-reloaded"'),
    }
    assert {why: notice_in(frame) for why, frame in not_one.items()} == dict.fromkeys(not_one)
    caller = {"t_ms": 0, "dir": "out", "type": "user_message", "turn_id": 2, "text": data}
    assert notice_in(caller) is None


def _transcript(text: str) -> list[str]:
    """The transcript's lines of ``sessions show``: after the header, before the record."""
    body = text.split("\n\n")[1]
    return body.splitlines()


def test_sessions_show_and_the_markdown_mark_each_reload_where_it_came(saved: str) -> None:
    with SessionStore() as store:
        row = store.find(saved)
        report = session_report(store, row)
    assert _transcript(session_text(row, report)) == [
        "  caller  [turn 2] one",
        "  bot     [unit 1, turn 2] 'You said: one'",
        "  caller  [turn 3] two",
        f"  ⟳ {MOVED_WORDS}",
        "  bot     [unit 2, turn 3] 'You said: two'",
        "  caller  [turn 4] three",
        f"  ⟳ {KEPT_WORDS}",
        "  bot     [unit 3, turn 4] 'You said: three'",
    ]
    markdown = session_markdown(row, report).splitlines()
    start = markdown.index("- **Caller** (turn 3): two")
    assert markdown[start : start + 2] == [
        "- **Caller** (turn 3): two",
        f"- *⟳ {MOVED_WORDS}*",
    ]
    kept = markdown[markdown.index("- **Caller** (turn 4): three") + 1]
    assert kept.startswith("- *⟳ brain reloaded: \\[bold red\\]x\\[/\\] \\[@click=app.quit\\]")
    assert kept.endswith("serving Greeter\\[/\\]; " + KEPT_WORDS.split("; ")[-1] + "*")
    assert "\\<\\!--\\<script\\>" in kept  # no HTML, no comment
    for line in markdown:  # no escape reaches the reader, no line is forged
        assert "\x1b" not in line and not line.startswith(("- forged", "# forged"))


def test_the_page_data_marks_each_reload_at_its_moment(saved: str) -> None:
    with SessionStore() as store:
        entries = page_data(StoredCall.load(store, store.find(saved)))["entries"]
    kinds = [(e["kind"], e.get("text")) for e in entries]
    assert kinds == [
        ("caller", "one"),
        ("bot", None),
        ("caller", "two"),
        ("reload", f"⟳ {MOVED_WORDS}"),
        ("bot", None),
        ("caller", "three"),
        ("reload", f"⟳ {KEPT_WORDS}"),
        ("bot", None),
    ]
    reload, answer = entries[3], entries[4]
    assert entries[2]["t_ms"] <= reload["t_ms"] <= answer["t_ms"]  # a click seeks there


def test_the_replay_shows_each_reload_in_the_conversation_at_its_moment(saved: str) -> None:
    with SessionStore() as store:
        row = store.find(saved)
        replayer = Replayer.of(StoredCall.load(store, store.find(row.id)))
    at = next(
        m.t_ms for m in replayer.moments if m.frame is not None and notice_in(m.frame.as_json())
    )
    replayer.seek(at - 1)
    assert MOVED not in replayer.view.entries
    changes = replayer.seek(at)
    assert changes is not None and MOVED in changes.entries
    replayer.seek(replayer.duration_ms)
    assert [e for e in replayer.view.entries if isinstance(e, ReloadNotice)] == [MOVED, KEPT]


async def test_the_replay_app_draws_the_reload_line(saved: str) -> None:
    app = ReplayApp(open_recording(saved[:8]), clock=ManualClock())
    async with app.run_test(size=SIZE) as pilot:
        app.go_to(app.duration_ms)
        await pilot.pause()
        lines = [line.text.plain for line in app.conversation.query(Line)]
    marks = [line for line in lines if line.startswith("⟳")]
    assert marks == [f"⟳ {MOVED_WORDS}", f"⟳ {KEPT_WORDS}"]  # markup shown as written
    said = [next(i for i, line in enumerate(lines) if f"You said: {n}" in line) for n in NUMBERS]
    assert said[0] < lines.index(marks[0]) < said[1] < lines.index(marks[1]) < said[2]


async def test_the_live_app_draws_the_reload_line_as_it_comes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """In the app, during the call: the line shows when the notice crosses, ahead of the
    answer the reloaded brain gives."""
    use_home(monkeypatch, tmp_path)
    server = await serve(ToldOfReloads)
    try:
        app = make_app(brain_url=server.url(), ms_per_word=10)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(  # no greeting: it listens first
                pilot,
                lambda: app.host is not None and app.host.core.state is CallState.LISTENING,
                "the call to listen",
            )
            await say(pilot, "two")
            await wait_until(
                pilot, lambda: "You said: two" in " ".join(line_texts(app)), "the answer"
            )
            lines = line_texts(app)
    finally:
        await server.close()
    assert f"⟳ {MOVED_WORDS}" in lines
    assert lines.index(f"⟳ {MOVED_WORDS}") < next(
        i for i, line in enumerate(lines) if "You said: two" in line
    )


def test_the_page_shows_each_reload_to_its_reader(
    saved: str, tmp_path: Path, browser: webdriver.Chrome
) -> None:
    page = tmp_path / "call.html"
    with SessionStore() as store:
        page.write_text(session_page(StoredCall.load(store, store.find(saved))))
    browser.get(page.as_uri())
    screenshot(browser, "page-reload-marked")
    assert console_errors(browser) == []
    rows = browser.find_elements(By.CSS_SELECTOR, "#transcript .entry")
    texts = [row.text for row in rows]
    marks = browser.find_elements(By.CSS_SELECTOR, "#transcript .entry.reload")
    assert [mark.text for mark in marks] == [f"⟳ {MOVED_WORDS}", f"⟳ {KEPT_WORDS}"]
    assert all(mark.is_displayed() for mark in marks)
    assert texts.index(marks[0].text) == texts.index("Callertwo") + 1  # "Caller" spaced by CSS
    assert "\u202e" not in browser.find_element(By.TAG_NAME, "body").text
