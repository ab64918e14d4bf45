"""One caller turn's latency waterfall in the app's panel (``f7``) and replay's (``w``), drawn
by :func:`sandbox.record.waterfall_text.waterfall_text`."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual.widgets import Static

from sandbox.record.waterfall_text import waterfall_text


class WaterfallView(Static):
    """A turn's waterfall, redrawn by :meth:`show`."""

    def show(self, turn_id: int | None, timeline: Mapping[str, int]) -> None:
        """Draw caller turn ``turn_id``'s waterfall (None: there is no caller turn yet)."""
        if turn_id is None:
            self.update(Text("no caller turn yet", style="dim"))
        else:
            self.update(waterfall_text(turn_id, timeline))
