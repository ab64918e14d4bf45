"""``--reload``'s logic, one look at a time: an edit moves live brains onto the new class
with their state, a broken edit keeps the old class serving, no edit does nothing; and each
call in progress is told of a reload, and whether it was moved."""

from __future__ import annotations

import json
import os
from pathlib import Path

from test_sdk_harness import eventually

from sandbox.brains import authored
from sandbox.commands.brain_reload import Reloader
from sandbox.sdk import BrainConnection
from sandbox.wire import pb
from sandbox.wire.codec import envelope

BRAIN = """
from sandbox.sdk import Brain

class Counter(Brain):
    def __init__(self):
        self.turns = 0

    def word(self):
        return "{word}"
"""
#: A Counter whose instances have another layout: a live brain cannot be moved onto it.
SLOTTED = 'class Counter(Brain):\n    __slots__ = ("slot",)'


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


async def test_each_call_in_progress_is_told_whether_it_goes_on_with_the_new_code(
    tmp_path: Path,
) -> None:
    path = tmp_path / "counting.py"
    _edit(path, BRAIN.format(word="one"), 1_000_000_000)
    source = authored.parse(str(path))
    assert source is not None
    reloader = Reloader(source, authored.load(source))
    sent: list[pb.Envelope] = []

    async def send(env: pb.Envelope) -> None:
        sent.append(env)

    call = BrainConnection(reloader.make(), send, session_id="s-1")
    unstarted = BrainConnection(reloader.make(), send, session_id="s-2")  # no SessionStart yet
    await call.feed(envelope(pb.SessionStart(turn_id=1, session_id="s-1", wire_version=3)))
    await eventually(lambda: call.session is not None)

    async def told() -> dict[str, object]:
        await eventually(lambda: any(env.HasField("rtvi") for env in sent))
        (rtvi,) = [env.rtvi for env in sent if env.HasField("rtvi")]
        sent.clear()
        assert rtvi.type == pb.RTVI_TYPE_SERVER_MESSAGE
        data: dict[str, object] = json.loads(rtvi.data)
        return data

    _edit(path, BRAIN.format(word="two"), 2_000_000_000)
    assert reloader.check() is not None
    reloader.tell([call, unstarted])
    notice = {"voqalize_sandbox": "brain-reloaded", "file": "counting.py", "serving": "Counter"}
    assert await told() == {**notice, "moved": True}

    # A layout the live brain cannot take: that call keeps the old code, and is told so.
    slotted = BRAIN.format(word="three").replace("class Counter(Brain):", SLOTTED)
    _edit(path, slotted, 3_000_000_000)
    words = reloader.check()
    assert words is not None and "2 call(s) keep the old Counter" in words
    reloader.tell([call, unstarted])
    assert await told() == {**notice, "moved": False}
    await call.close()
    await unstarted.close()
    reloader.tell([call])  # over: nothing more is sent
    assert not any(env.HasField("rtvi") for env in sent)
