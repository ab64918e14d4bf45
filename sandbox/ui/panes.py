"""The panes a call is shown in, live or replayed: conversation beside wire and app pane."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical

from sandbox.ui.widgets.app_pane import AppPane
from sandbox.ui.widgets.banner import Banner
from sandbox.ui.widgets.conversation import ConversationPane
from sandbox.ui.widgets.status import StatusLine
from sandbox.ui.widgets.wire import WirePane

CSS = """
#main { height: 1fr; }
#conversation { width: 1fr; border: round $primary; }
#side { width: 1fr; }
#wire { border: round $primary; }
#app-pane { border: round $secondary; }
"""


class CallPanes:
    """The panes, made once and kept: a query would search the active screen, which may be a
    modal."""

    def __init__(self, wire_keeps: int | None = None) -> None:
        self.banner = Banner(id="banner")
        self.conversation = ConversationPane(id="conversation", initial_index=None)
        self.wire = WirePane(keeps=wire_keeps, id="wire")
        self.app_pane = AppPane(id="app-pane")
        self.status = StatusLine(id="status")

    def main(self) -> ComposeResult:
        """Conversation | wire over app pane."""
        with Horizontal(id="main"):
            yield self.conversation
            with Vertical(id="side"):
                yield self.wire
                yield self.app_pane

    def titled(self) -> None:
        """Name the panes on their borders (once mounted)."""
        self.conversation.border_title = "conversation"
        self.wire.border_title = "wire"
        self.app_pane.border_title = "app (RTVI)"
