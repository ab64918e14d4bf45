"""No text from the wire is ever parsed as Rich/Textual markup, nor reaches the terminal as
control: a fatal ``Error{message: "[/x]"}`` once crashed ``sandbox run`` with MarkupError.

End to end in a real terminal (tmux), typed mode, against a raw-wire brain whose greeting and
Error messages are markup and terminal escapes; and the app's parts headlessly.
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest
from hostile_text_brain import ERRORS, FATAL, GREETING, hostile_text_brain
from textual.widgets._toast import Toast
from ui_tmux import sandbox_in_tmux, sandbox_run

from sandbox.call.effects import BrainError, CallerShown
from sandbox.demo.headless import scene_options
from sandbox.demo.scene import parse_scene
from sandbox.paths import HOME_ENV
from sandbox.record.session_kinds import CallMode
from sandbox.ui.demo_app import DemoApp
from sandbox.ui.lines import caller_text, notice_text, notice_words
from sandbox.ui.plain_app import PlainApp
from sandbox.ui.runner import CallSetup
from sandbox.ui.typed_audio import TypedAudio


class _Notifying(PlainApp[None]):
    """The sandbox's app base, and nothing else."""


@pytest.mark.parametrize("words", ["[/x]", "[bold red]x[/]", "[@click=app.quit]q[/]"])
async def test_a_notification_shows_markup_as_written(words: str) -> None:
    app = _Notifying()
    async with app.run_test(notifications=True) as pilot:
        app.notify(words, title="brain [error]", severity="error")
        await pilot.pause()
        (toast,) = app.query(Toast)
        assert toast.render().plain == f"brain [error]\n{words}"
        await pilot.click(Toast)  # a [@click] link, had it been parsed, would quit the app
        await pilot.pause()
        assert app.is_running


async def test_a_notification_spells_out_controls() -> None:
    app = _Notifying()
    async with app.run_test(notifications=True) as pilot:
        app.notify("\x1b]0;owned\x07\u202eevil")
        await pilot.pause()
        assert app.query_one(Toast).render().plain == "\\x1b]0;owned\\x07\\u202eevil"


def test_conversation_lines_are_plain_text() -> None:
    level, words = notice_words(BrainError(code="INTERNAL", message="[/x] \x1b[2J", fatal=True))
    line = notice_text(level, words)
    assert line.plain == "✖ brain error INTERNAL: [/x] \\x1b[2J" and not line.spans[1:]
    said = caller_text(CallerShown(kind="typed", text="[b]hi[/b]\r\u202e", turn_id=2))
    assert said.plain.endswith("[b]hi[/b]\\r\\u202e")


#: A scene file anyone could write: markup and an escape in its title and caption.
SCENE = """
title = "[/x] a scene"
brain = "concierge"

[[step]]
caption = "[@click=app.quit]q[/] \\u001b[2J"

[[step]]
say = "How much is a class?"
"""


async def test_a_scene_files_markup_is_shown_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(HOME_ENV, str(tmp_path))
    scene = parse_scene(SCENE, "mine")
    setup = CallSetup(scene_options(scene, None, CallMode.TYPED), TypedAudio(20, "on the clock"))
    app = DemoApp(setup, scene, number="1 of 1", last=True)
    async with app.run_test(size=(150, 45)) as pilot:
        assert str(app.caption.render()) == "Scene 1 of 1: [/x] a scene"
        deadline = time.monotonic() + 30
        while app.runner.report is None and time.monotonic() < deadline:
            await pilot.pause(0.1)
        assert app.runner.report is not None, "the scene's call never ended"
        assert "[@click=app.quit]q[/] \\x1b[2J" in str(app.caption.render())


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_markup_from_the_wire_is_shown_as_written_and_the_app_survives(tmp_path: Path) -> None:
    args = ["--typed", "--idle-ms", "0", "--ms-per-word", "50"]
    with (
        hostile_text_brain() as url,
        sandbox_run([*args, "--brain", url], {HOME_ENV: str(tmp_path)}) as term,
    ):
        screen = term.wait_for(lambda s: "greeting · played" in s, "the greeting", timeout_s=60)
        assert GREETING in screen
        session = re.search(r"session ([0-9a-f]{8})-", screen)
        assert session is not None, screen
        for message in ERRORS[:2]:
            assert f"⚠ brain error INTERNAL: {message}" in screen
        assert "\\x1b[2J\\x1b]0;owned\\x07" in screen  # the escapes, spelt out
        assert "\\u202eevil\\u202c \\r- forged item\\n# forged heading" in screen
        term.keys("hello [b]there[/b]", "Enter")
        toast = f"▌ brain error INTERNAL: {FATAL}"  # its notification, as written
        # The toast is drawn a frame after the line that ends the call: wait for both.
        screen = term.wait_for(
            lambda s: "Call ended" in s and toast in s, "the fatal Error to end the call"
        )
        assert f"✖ brain error INTERNAL: {FATAL}" in screen
        assert "hello [b]there[/b]" in screen and "EXIT=" not in screen
        term.keys("C-q")
        screen = term.wait_for(lambda s: "EXIT=" in s, "the app to quit")
    assert "EXIT=0" in screen
    assert "Traceback" not in screen and "MarkupError" not in screen
    # The replay of the call shows the same words the same way.
    with sandbox_in_tmux(["replay", session.group(1)], {HOME_ENV: str(tmp_path)}) as term:
        term.wait_for(lambda s: "paused" in s, "the replay", timeout_s=60)
        term.keys("Right", "Right")
        screen = term.wait_for(lambda s: "Call ended" in s, "the replay's end")
        assert GREETING in screen and f"✖ brain error INTERNAL: {FATAL}" in screen
        assert "\\x1b[2J\\x1b]0;owned\\x07" in screen
        term.keys("C-q")
        screen = term.wait_for(lambda s: "EXIT=" in s, "the replay to quit")
    assert "EXIT=0" in screen and "Traceback" not in screen
