"""The replay's timeline strip: where playback is, and the moments worth jumping to."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

from sandbox.replay.timeline import Marker

#: How each kind of marker is drawn, and its colour.
MARKS = {
    "turn": ("▲", "cyan"),
    "barge-in": ("✂", "bold red"),
    "cancel": ("✗", "magenta"),
    "error": ("!", "bold yellow"),
}


def timeline_text(
    width: int, t_ms: int, duration_ms: int, markers: Sequence[Marker], status: str
) -> Text:
    """One strip of ``width`` cells with the markers and the playhead, then the status."""
    width = max(width, 10)
    cells: list[tuple[str, str]] = [("─", "dim")] * width
    span = max(duration_ms, 1)
    for marker in markers:
        cells[min(width - 1, marker.t_ms * (width - 1) // span)] = MARKS[marker.kind]
    head = min(width - 1, max(t_ms, 0) * (width - 1) // span)
    cells[head] = ("█", "bold green")
    text = Text()
    for char, style in cells:
        text.append(char, style=style)
    text.append(f"\n{status}")
    return text


class TimelineStrip(Static):
    """Redrawn by the replay app on every tick."""

    DEFAULT_CSS = """
    TimelineStrip { height: 2; padding: 0 1; background: $boost; }
    """

    def show(self, t_ms: int, duration_ms: int, markers: Sequence[Marker], status: str) -> None:
        """Draw the strip at the playhead ``t_ms``."""
        # The strip spans the screen; before its first layout its own size is not known yet.
        width = (self.size.width or self.app.size.width) - 2
        self.update(timeline_text(width, t_ms, duration_ms, markers, status))
