"""``--reload``'s watcher (watchfiles): an edit saved in place and one saved the way many
editors do (a new file renamed onto the old) are both seen and reloaded, and nothing else in
the folder is; the calls in progress are asked for after each reload, not after an edit
that does not load."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from sandbox.brains import authored
from sandbox.commands.brain_reload import Reloader
from sandbox.sdk import BrainConnection

BRAIN = """
from sandbox.sdk import Brain

class Greeter(Brain):
    def word(self):
        return "{word}"
"""
#: The watcher's own debounce is under a second; a loaded CI machine needs more.
SEEN_S = 10.0


async def test_the_watcher_reloads_on_each_save_and_only_then(tmp_path: Path) -> None:
    path = tmp_path / "greeter.py"
    path.write_text(BRAIN.format(word="one"))
    source = authored.parse(str(path))
    assert source is not None
    reloader = Reloader(source, authored.load(source))
    said: asyncio.Queue[str] = asyncio.Queue()
    asked: list[str] = []  # each time the watcher asked for the calls to tell of a reload

    def calls() -> list[BrainConnection]:
        asked.append(reloader.make().word())  # type: ignore[attr-defined]
        return []

    watching = asyncio.create_task(reloader.watch(said.put_nowait, calls))
    try:
        await asyncio.sleep(0.5)  # the watcher set up
        (tmp_path / "notes.txt").write_text("another file in the folder")
        path.write_text(BRAIN.format(word="two"))
        words = await asyncio.wait_for(said.get(), SEEN_S)
        assert words == "Reloaded greeter.py: serving Greeter."
        assert reloader.make().word() == "two"  # type: ignore[attr-defined]

        saved = tmp_path / ".greeter.py.swp-new"
        saved.write_text(BRAIN.format(word="three"))
        os.replace(saved, path)  # an editor's atomic save
        assert await asyncio.wait_for(said.get(), SEEN_S) == words
        assert reloader.make().word() == "three"  # type: ignore[attr-defined]

        path.write_text(BRAIN.format(word="four").replace("):", ")"))  # does not load
        assert "Still serving" in await asyncio.wait_for(said.get(), SEEN_S)
        assert asked == ["two", "three"]  # after each reload, with the new class; none since
        assert said.empty()
    finally:
        watching.cancel()
        await asyncio.gather(watching, return_exceptions=True)
