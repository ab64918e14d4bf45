"""The help screen: every key, what each pane shows, and where the report goes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

ABOUT = """\
**Conversation** (left): your turns (said or typed), each bot unit with the part you heard
in **bold** and the rest dimmed — struck through, with ✂ *N of M words heard*, when it was
cut. Highlight a unit (arrow keys or a click) to mark its frames in the wire pane.

**Wire** (right): every frame both ways as it crosses — V→B from Voqalize to the brain,
B→V back — with its time (ms since the call started), turn, speech unit and fields. Type
in the filter box to show only some types (`speech finalize`) or hide some (`-turn_step`);
highlight a row to see the whole frame below. The **app** pane shows the RTVI plane: the
brain's ui-commands and server-messages, and the frames you send.

**Status** (bottom): call state, microphone, the interruption watermark, capabilities, the
config in force, and the last turn's latency waterfall.

The call's report (the same JSON as `sandbox call --report`) is written when the call ends;
its path is shown in the conversation and printed when you quit.
"""


def help_markdown(keys: Sequence[tuple[str, str]]) -> str:
    """The help text: a table of ``(key, what it does)`` and the panes explained."""
    rows = "\n".join(f"| `{key}` | {what} |" for key, what in keys)
    return f"# Voqalize Sandbox\n\n| key | does |\n| --- | --- |\n{rows}\n\n{ABOUT}"


class HelpScreen(ModalScreen[None]):
    """Keys and panes explained; any of escape, q or f1 closes it."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 90%; max-width: 100; height: 90%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,f1", "app.pop_screen", "close help"),
    ]

    def __init__(self, keys: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        self._keys = tuple(keys)

    def compose(self) -> ComposeResult:
        """The help text in a scrollable box."""
        with VerticalScroll():
            yield Markdown(help_markdown(self._keys))
