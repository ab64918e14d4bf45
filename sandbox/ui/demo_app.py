"""The terminal app playing one demo scene: the app's panes, the scene's caller driving the
call, and a caption bar telling the room what just happened."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Header, Static

from sandbox.call.units import ShownUnit, UnitView
from sandbox.caller.script_runner import Caller
from sandbox.demo.director import Director
from sandbox.demo.scene import Scene
from sandbox.record.plain_text import visible
from sandbox.ui.app import SandboxApp
from sandbox.ui.messages import CallFinished, CallStarted
from sandbox.ui.runner import CallSetup
from sandbox.ui.screens.final_card import FinalCard

#: With --auto, how long a finished scene stays up before the next one.
AUTO_PAUSE_S = 4.0


class DemoApp(SandboxApp):
    """One scene. ``earlier``: the units of the scenes before, for the final card (shown
    after this scene when ``last``). ``go_on`` says whether the presenter moved on."""

    CSS = (
        SandboxApp.CSS
        + """
    #caption { height: auto; min-height: 3; padding: 0 1; background: $accent 30%; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        *SandboxApp.BINDINGS,
        Binding("space", "next_scene", "next scene", priority=True),
        Binding("q", "leave", "leave demo"),
    ]

    def __init__(
        self,
        setup: CallSetup,
        scene: Scene,
        *,
        number: str,
        auto: bool = False,
        last: bool = False,
        earlier: list[tuple[str, Sequence[ShownUnit]]] | None = None,
        caller: Caller | None = None,
    ) -> None:
        super().__init__(setup)
        self.scene = scene
        self.caller = caller  # None: the caller's lines are committed text (on the clock)
        # A scene may be anyone's file: its title and captions are plain text, never markup.
        self.caption = Static(Text(visible(f"Scene {number}: {scene.title}")), id="caption")
        self.auto = auto
        self.last = last
        self.earlier = earlier or []
        self.go_on = False
        self.captions: list[str] = []
        self._finished = False

    def compose(self) -> ComposeResult:
        """The caption bar above the app's own panes; no message box (the scene speaks)."""
        yield Header()
        yield self.caption
        yield self.banner
        yield from self.panes.main()
        yield self.status
        yield Footer()

    # Textual runs SandboxApp's own handlers of these messages too (after these): they start
    # the call and fill the panes; these add the scene.

    def on_mount(self) -> None:
        """The scene's caller takes the place of the message box."""
        self.say.disabled = True

    def on_call_started(self, message: CallStarted) -> None:
        """The brain answered: the scene starts."""
        # The director acts on the call, so it runs on the call's thread; its captions come
        # back to this one.
        ui = asyncio.get_running_loop()

        def show(text: str) -> None:
            ui.call_soon_threadsafe(self._show, text)

        director = Director(message.host, self.scene, show, caller=self.caller)
        self.run_worker(self.runner.ask(director.run()), name="director", exit_on_error=False)

    def on_call_finished(self, message: CallFinished) -> None:
        """The scene is over: say how to go on."""
        self._finished = True
        what = "the summary" if self.last else "the next scene"
        self.caption.update(self._captions(f"— scene over · space: {what} · q: leave the demo"))
        if self.auto:
            self.set_timer(AUTO_PAUSE_S, self.action_next_scene)

    def units(self) -> list[UnitView]:
        """This scene's units, as the call left them (none before it is over): frozen on the
        call's thread as it ended."""
        return list(self.runner.units)

    def _show(self, text: str) -> None:
        self.captions.append(text)
        self.caption.update(self._captions())

    def _captions(self, footer: str = "") -> Text:
        """The scene's captions so far, the newest bright, the rest dimmed; then ``footer``."""
        shown = Text()
        for index, caption in enumerate(self.captions):
            newest = index == len(self.captions) - 1
            shown.append(visible(caption) + "\n", style="bold" if newest else "dim")
        if footer:
            shown.append(footer, style="italic")
        return shown

    def action_next_scene(self) -> None:
        """Go on once the scene is over: the next scene, or the final card."""
        if isinstance(self.screen, FinalCard):
            self.screen.dismiss(None)
            return
        if not self._finished:
            self.notify("the scene is still playing")
            return
        if self.last and not isinstance(self.screen, FinalCard):
            cards = [*self.earlier, (self.scene.title, self.units())]
            self.push_screen(FinalCard(cards), lambda _none: self.exit(self.report))
            if self.auto:
                self.set_timer(AUTO_PAUSE_S * 2, self.action_next_scene)
            return
        self.go_on = True
        self.exit(self.report)

    async def action_leave(self) -> None:
        """Leave the demo: end this scene's call, wait for its record, and go."""
        await self.action_quit()
