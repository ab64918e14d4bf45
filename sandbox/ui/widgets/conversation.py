"""The conversation pane: caller turns, bot units with their heard truth, notices, the end.

Bot units redraw in place as words are heard. Highlighting a unit posts
:class:`ConversationPane.UnitSelected`, so the wire pane can mark that unit's frames.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import ListItem, ListView, Static

from sandbox.call.units import ShownUnit
from sandbox.ui.lines import unit_text


class Line(ListItem):
    """One entry of the conversation."""

    DEFAULT_CSS = """
    Line { padding: 0 1; }
    """

    def __init__(self, text: Text, **kwargs: Any) -> None:
        self.text = text
        self._body = Static(text)  # kept: a line may be redrawn before it is mounted
        super().__init__(self._body, **kwargs)

    def show(self, text: Text) -> None:
        """Redraw the entry. Only new words can change its height: a word heard only
        restyles it, so the screen is not laid out again for each one."""
        layout = text.plain != self.text.plain
        self.text = text
        self._body.update(text, layout=layout)


class UnitLine(Line):
    """A bot unit's entry, which knows its speech id."""

    def __init__(self, unit: ShownUnit) -> None:
        super().__init__(unit_text(unit))
        self.speech_id = unit.speech_id


class ConversationPane(ListView):
    """Every line of the call, oldest first; follows the newest unless you are browsing."""

    class UnitSelected(Message):
        """A unit was highlighted (``speech_id``), or something else was (None)."""

        def __init__(self, speech_id: int | None) -> None:
            super().__init__()
            self.speech_id = speech_id

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._units: dict[int, UnitLine] = {}

    def reset(self) -> None:
        """Empty the pane (a replay moving back redraws it from the start)."""
        self.clear()
        self._units.clear()

    def add_line(self, text: Text) -> None:
        """Append a caller line, a notice or the end of the call."""
        self._append(Line(text))

    def show_unit(self, unit: ShownUnit) -> None:
        """Draw a unit: appended when new, redrawn in place when it changed."""
        line = self._units.get(unit.speech_id)
        if line is None:
            line = UnitLine(unit)
            self._units[unit.speech_id] = line
            self._append(line)
        else:
            line.show(unit_text(unit))

    def highlight_unit(self, speech_id: int) -> None:
        """Move the highlight to a unit's entry (which marks its frames on the wire)."""
        line = self._units.get(speech_id)
        if line is not None and line in self.children:
            self.index = list(self.children).index(line)

    def unit_line(self, speech_id: int) -> UnitLine | None:
        """The entry of a unit, if it is shown."""
        return self._units.get(speech_id)

    def _append(self, line: Line) -> None:
        self.append(line)
        if not self.has_focus:
            self.call_after_refresh(self.scroll_end, animate=False)

    def on_list_view_highlighted(self, event: ListView.Highlighted) -> None:
        """Tell the app which unit is selected."""
        event.stop()
        item = event.item
        self.post_message(self.UnitSelected(item.speech_id if isinstance(item, UnitLine) else None))
