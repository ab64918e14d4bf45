"""Plays a scene into a running call: the caller's steps through a ScriptRunner, and each
caption when its moment comes (filled in from what the call actually did)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sandbox.call.units import Fate, Unit
from sandbox.caller.script import Script
from sandbox.caller.script_runner import Caller, ScriptRunner
from sandbox.demo.scene import Caption, Scene
from sandbox.host.session import CallHost
from sandbox.record.stored_events import CaptionShown, ScenePlayed

#: How long a caption waits for its moment (a cut, the bot going quiet) before it shows.
CAPTION_WAIT_S = 30.0
#: Why a scene's call ended: the scene played out, nobody hung up.
SCENE_ENDED = "the scene ended"
_CUT = (Fate.BARGED, Fate.CANCELLED)


@dataclass
class Director:
    """Plays ``scene`` into ``host``'s call; ``show`` puts a caption up for the room."""

    host: CallHost
    scene: Scene
    show: Callable[[str], None]
    caller: Caller | None = None  # default: committed text, on the clock
    captions: list[str] = field(default_factory=list)

    @property
    def sound(self) -> bool:
        """The caller speaks (real audio), rather than committing text."""
        return self.caller is not None

    async def run(self) -> list[str]:
        """Every item in order, then hang up once the bot is quiet; the captions shown."""
        runner = ScriptRunner(self.host, Script(self.scene.steps), caller=self.caller)
        # Recorded, so the saved session (its replay, its page) keeps the scene's narration.
        self.host.recorder.event(self.host.now(), ScenePlayed(self.scene.name, self.scene.title))
        index = 0
        for item in self.scene.items:
            if self.host.core.ended is not None:
                break
            if isinstance(item, Caption):
                await self._caption(runner, item)
            else:
                index += 1
                await runner.play(item, index)
        if self.host.core.ended is None:
            await runner.settle()
            self.host.hang_up(SCENE_ENDED)
        return self.captions

    async def _caption(self, runner: ScriptRunner, caption: Caption) -> None:
        if caption.when == "cut":
            await self.host.wait_for(self._cut_landed, CAPTION_WAIT_S)
        elif caption.when == "played":
            await runner.settle()
        if not self._true(caption.only):  # judged at its moment: the call has gone its way
            return
        text = fill(caption.text, self._focus(), self._caller_said())
        self.captions.append(text)
        self.host.recorder.event(self.host.now(), CaptionShown(text))
        self.show(text)

    def _cut_landed(self) -> bool:
        return any(unit.fate in _CUT for unit in self.host.core.units)

    def _true(self, only: str | None) -> bool:
        """Whether a caption with this ``only`` applies to the call as it went."""
        if only in ("sound", "clock"):
            return only == ("sound" if self.sound else "clock")
        if only in ("cut", "whole"):
            return (only == "cut") == self._cut_landed()
        return True

    def _caller_said(self) -> str:
        said = self.host.core.ledger.caller_lines  # each caller turn's text, as it was sent
        return said[-1] if said else ""

    def _focus(self) -> Unit | None:
        units = self.host.core.units
        cut = [unit for unit in units if unit.fate in _CUT]
        return cut[-1] if cut else (units[-1] if units else None)


def fill(text: str, unit: Unit | None, caller: str = "") -> str:
    """A caption's placeholders, from ``unit`` and the caller's latest turn (see
    :mod:`sandbox.demo.scene`)."""
    values = {"caller": caller}
    if unit is not None:
        generated, heard = unit.generated, unit.heard
        values |= {
            "heard_words": str(len(heard.split())),
            "total_words": str(len(generated.split())),
            "heard": heard,
            "unheard": generated[len(heard) :].strip(),
        }
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text
