"""The call screen's busiest redraws do not lay the screen out again: the status line (its
meter redraws ten times a second) and a unit's entry as its words are heard. A layout
reflows every widget on the screen on the loop that also runs the call, and a reply's
first clause is synthesized while the screen redraws, so these were time taken from it.

Textual counts the layouts a widget asks for (``_layout_updates``); a redraw that changes
no size must not ask for one, and one that may change a size still must.
"""

from __future__ import annotations

from textual.app import App, ComposeResult

from sandbox.call.units import Unit
from sandbox.ui.lines import unit_text
from sandbox.ui.widgets.conversation import ConversationPane
from sandbox.ui.widgets.status import StatusLine
from sandbox.wire import pb

REPLY = "Sure, I can help you with that right away."


class _Screen(App[None]):
    def compose(self) -> ComposeResult:
        yield ConversationPane(id="conversation")
        yield StatusLine(id="status")


def _unit(text: str, heard_words: int) -> Unit:
    unit = Unit(speech_id=4, turn_id=2, voice=pb.VOICE_JOE, language=pb.LANGUAGE_EN)
    unit.cursor.extend(text)
    for word in text.split()[:heard_words]:
        unit.cursor.played(word)
    return unit


async def test_words_heard_restyle_a_unit_without_a_layout_and_new_text_lays_it_out() -> None:
    app = _Screen()
    async with app.run_test(size=(80, 20)) as pilot:
        pane = app.query_one(ConversationPane)
        pane.show_unit(_unit(REPLY, 0))
        await pilot.pause()
        line = pane.unit_line(4)
        assert line is not None
        body = line.query_one("Static")
        before = body._layout_updates
        for heard in range(1, len(REPLY.split()) + 1):
            pane.show_unit(_unit(REPLY, heard))
            await pilot.pause()
        assert body._layout_updates == before
        assert line.text.plain == unit_text(_unit(REPLY, len(REPLY.split()))).plain
        pane.show_unit(_unit(REPLY + " Let me pull up your order details.", 9))
        await pilot.pause()
        assert body._layout_updates > before


async def test_the_status_line_redraws_without_a_layout() -> None:
    app = _Screen()
    async with app.run_test(size=(80, 20)) as pilot:
        status = app.query_one(StatusLine)
        await pilot.pause()
        before = status._layout_updates
        for level in range(10):
            status.show(meter=f"mic {'▮' * level}", watermark=level)
            await pilot.pause()
        assert status._layout_updates == before
        assert "watermark 9" in str(status.render())
