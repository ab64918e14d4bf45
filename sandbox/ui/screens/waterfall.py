"""The latency waterfall of one caller turn, over the app (see
:mod:`sandbox.ui.widgets.waterfall`): the live call's last turn, or the turn at a replay's
playhead."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen

from sandbox.ui.widgets.waterfall import WaterfallView


class WaterfallScreen(ModalScreen[None]):
    """One turn's waterfall; escape, q or w closes it."""

    DEFAULT_CSS = """
    WaterfallScreen { align: center middle; }
    WaterfallScreen > Vertical {
        width: auto; height: auto; max-width: 100%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    WaterfallScreen WaterfallView { width: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,w,f7", "app.pop_screen", "close"),
    ]

    def __init__(self, turn_id: int | None, timeline: Mapping[str, int]) -> None:
        super().__init__()
        self.view = WaterfallView(id="waterfall")
        self.turn_id, self.timeline = turn_id, dict(timeline)

    def compose(self) -> ComposeResult:
        """The waterfall in a bordered box."""
        with Vertical():
            yield self.view

    def on_mount(self) -> None:
        """Draw the turn."""
        self.query_one(Vertical).border_title = "latency waterfall"
        self.view.show(self.turn_id, self.timeline)
