"""``--reload``'s logic, one look at a time: an edit moves live brains onto the new class
with their state, a broken edit keeps the old class serving, no edit does nothing."""

from __future__ import annotations

import os
from pathlib import Path

from sandbox.brains import authored
from sandbox.commands.brain_reload import Reloader

BRAIN = """
from sandbox.sdk import Brain

class Counter(Brain):
    def __init__(self):
        self.turns = 0

    def word(self):
        return "{word}"
"""


def _edit(path: Path, text: str, tick: int) -> None:
    path.write_text(text)
    os.utime(path, ns=(tick, tick))  # a new stamp even within the clock's resolution


def test_an_edit_moves_live_brains_and_a_broken_one_keeps_the_old(tmp_path: Path) -> None:
    path = tmp_path / "counting.py"
    _edit(path, BRAIN.format(word="one"), 1_000_000_000)
    source = authored.parse(str(path))
    assert source is not None
    reloader = Reloader(source, authored.load(source))
    live = reloader.make()
    live.turns = 3  # type: ignore[attr-defined]
    assert reloader.check() is None  # nothing changed

    _edit(path, BRAIN.format(word="two"), 2_000_000_000)
    words = reloader.check()
    assert words == (
        "Reloaded counting.py: serving Counter; 1 call(s) in progress go on with the new code."
    )
    assert live.word() == "two" and live.turns == 3  # type: ignore[attr-defined]
    assert reloader.make().word() == "two"  # type: ignore[attr-defined]

    _edit(path, BRAIN.format(word="three").replace("def word(self):", "def word(self)"), 3)
    words = reloader.check()
    assert words is not None and "SyntaxError" in words
    assert words.endswith("Still serving the previous Counter: fix the file and save it again.")
    assert live.word() == "two" and reloader.make().word() == "two"  # type: ignore[attr-defined]
