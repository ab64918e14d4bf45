"""The conversation pane folds a run of empty units into one entry, as ``sandbox call``
prints them (issue 56): a brain opening unit after unit and saying nothing showed one line
a unit. A unit of a run that gains text is drawn on its own again, in its place.

First the pane alone in a pilot, then the app against the real ``open_units`` brain in a
process of its own over a real WebSocket.
"""

from __future__ import annotations

import asyncio
import time

from rich.text import Text
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from ui_rig import SIZE, greeted, host_of, make_app, say

from sandbox.brains.hostile import hostile_process
from sandbox.call.units import Unit
from sandbox.ui.widgets.conversation import ConversationPane, EmptyRunLine, Line, UnitLine
from sandbox.wire import pb


class _Screen(App[None]):
    def compose(self) -> ComposeResult:
        yield ConversationPane(id="conversation")


def _unit(speech_id: int, text: str = "", turn_id: int = 2) -> Unit:
    unit = Unit(speech_id, turn_id, pb.VOICE_JOE, pb.LANGUAGE_EN)
    unit.relay(text)
    return unit


def _entries(pane: ConversationPane) -> list[str]:
    """Each entry's text, first line only, in the pane's order."""
    return [c.text.plain.splitlines()[0] for c in pane.children if isinstance(c, Line)]


async def _settled(pilot: Pilot[None]) -> None:
    await pilot.pause()
    await pilot.pause()


async def test_a_run_of_empty_units_is_one_entry_and_a_unit_that_speaks_splits_it() -> None:
    app = _Screen()
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(ConversationPane)
        pane.show_unit(_unit(1, "Hello there.", turn_id=1))
        for sid in range(2, 302):
            pane.show_unit(_unit(sid))
        await _settled(pilot)
        assert _entries(pane) == [
            _entries_of_unit(pane, 1),
            "bot     [units 2 to 301, turn 2] 300 empty units, no text",
        ]
        pane.show_unit(_unit(150, "Now I speak."))  # one of the run gains text
        pane.show_unit(_unit(300, "So do I."))
        pane.show_unit(_unit(200))  # still empty: it stays folded
        await _settled(pilot)
        entries = _entries(pane)
        assert entries[1:] == [
            "bot     [units 2 to 149, turn 2] 148 empty units, no text",
            _entries_of_unit(pane, 150),
            "bot     [units 151 to 299, turn 2] 149 empty units, no text",
            _entries_of_unit(pane, 300),
            _entries_of_unit(pane, 301),
        ]
        assert "unit 301" in entries[-1]  # a run of one is the unit's own entry
        pane.add_line(Text("caller · turn 3"))
        pane.show_unit(_unit(302))
        pane.show_unit(_unit(303))
        await _settled(pilot)
        assert _entries(pane)[-1] == "bot     [units 302 to 303, turn 2] 2 empty units, no text"
        pane.highlight_unit(160)  # a folded unit highlights its run
        assert isinstance(pane.highlighted_child, EmptyRunLine)
        assert "units 151 to 299" in pane.highlighted_child.text.plain


def _entries_of_unit(pane: ConversationPane, speech_id: int) -> str:
    line = pane.unit_line(speech_id)
    assert isinstance(line, UnitLine) and line.is_mounted
    return line.text.plain.splitlines()[0]


async def test_the_app_against_a_unit_flood_shows_the_run_as_one_entry() -> None:
    """The real app and the real ``open_units`` brain: thousands of units opened, none
    closed, none with text; the pane holds the greeting, the caller's line and one run."""
    with hostile_process("open_units", "--per-second", "1000") as url:
        app = make_app(ms_per_word=10, brain_url=url)
        async with app.run_test(size=SIZE) as pilot:
            await greeted(pilot)
            await say(pilot, "Hello there.")
            pane = app.conversation
            deadline = time.monotonic() + 30
            while sum(len(run.units) for run in _runs(pane)) < 300:
                assert time.monotonic() < deadline, "the flood's units were never shown"
                await asyncio.sleep(0.05)
            assert len(host_of(app).core.units) >= 300  # opened, every one
            assert len(_runs(pane)) == 1, _entries(pane)
            # The greeting, the caller's line and the run: not a line a unit.
            assert len(pane.children) <= 4, _entries(pane)
            assert "empty units, no text" in _runs(pane)[0].text.plain


def _runs(pane: ConversationPane) -> list[EmptyRunLine]:
    return [c for c in pane.children if isinstance(c, EmptyRunLine)]
