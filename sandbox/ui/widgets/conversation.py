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
from sandbox.record.transcript import empty_run, transcript_line
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
    """A bot unit's entry, which knows its speech id and the unit as last drawn."""

    def __init__(self, unit: ShownUnit) -> None:
        super().__init__(unit_text(unit))
        self.speech_id = unit.speech_id
        self.unit = unit

    def show_unit(self, unit: ShownUnit) -> None:
        """Redraw it as ``unit`` now stands."""
        self.unit = unit
        self.show(unit_text(unit))


class EmptyRunLine(Line):
    """Two or more units one after another with no text at all, in one entry, as ``sandbox
    call`` prints them (:class:`~sandbox.record.transcript.EmptyUnits`): a brain opening
    unit after unit and saying nothing would otherwise fill the pane a line each."""

    def __init__(self, units: list[ShownUnit]) -> None:
        first, *rest = self.units = units
        self.run = empty_run(first)
        for unit in rest:
            self.run = self.run.add(unit)
        super().__init__(self._text())

    def add(self, unit: ShownUnit) -> None:
        """One more empty unit at the end of the run (the cost of one, not of the run)."""
        self.units.append(unit)
        self.run = self.run.add(unit)
        self.show(self._text())

    def _text(self) -> Text:
        return Text(transcript_line(self.run).strip(), style="green")


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
        #: Units shown folded in a run of empty ones, by id: the run's entry.
        self._folded: dict[int, EmptyRunLine] = {}
        #: The newest entry appended: a unit's, a run's, or another.
        self._last: Line | None = None

    def reset(self) -> None:
        """Empty the pane (a replay moving back redraws it from the start)."""
        self.clear()
        self._units.clear()
        self._folded.clear()
        self._last = None

    def add_line(self, text: Text) -> None:
        """Append a caller line, a notice or the end of the call."""
        self._append(Line(text))

    def show_unit(self, unit: ShownUnit) -> None:
        """Draw a unit: appended when new, redrawn in place when it changed. A run of units
        with no text at all is one entry; a unit of it that gains text is drawn on its own
        again, in its place."""
        sid = unit.speech_id
        line = self._units.get(sid)
        run = self._folded.get(sid)
        if line is not None:
            line.show_unit(unit)
        elif run is not None:
            if unit.generated:
                self._unfold(run, unit)
        elif not unit.generated and isinstance(self._last, EmptyRunLine):
            self._last.add(unit)
            self._folded[sid] = self._last
        elif (
            not unit.generated
            and isinstance(self._last, UnitLine)
            and not self._last.unit.generated
        ):
            alone = self._last
            del self._units[alone.speech_id]
            alone.remove()
            self._append(self._run_of([alone.unit, unit]))
        else:
            self._append(self._line_of(unit))

    def _line_of(self, unit: ShownUnit) -> UnitLine:
        line = self._units[unit.speech_id] = UnitLine(unit)
        return line

    def _run_of(self, units: list[ShownUnit]) -> EmptyRunLine:
        run = EmptyRunLine(units)
        self._folded.update((u.speech_id, run) for u in units)
        return run

    def _unfold(self, run: EmptyRunLine, unit: ShownUnit) -> None:
        """``unit`` of ``run`` gained text: the run splits around its own entry."""
        at = [u.speech_id for u in run.units].index(unit.speech_id)
        parts: list[Line] = []
        for side in (run.units[:at], None, run.units[at + 1 :]):
            if side is None:
                parts.append(self._line_of(unit))
            elif len(side) == 1:
                parts.append(self._line_of(side[0]))
            elif side:
                parts.append(self._run_of(side))
        for folded in run.units:
            if self._folded.get(folded.speech_id) is run:
                del self._folded[folded.speech_id]
        self.mount(*parts, before=run)
        run.remove()
        if self._last is run:
            self._last = parts[-1]

    def highlight_unit(self, speech_id: int) -> None:
        """Move the highlight to a unit's entry, or the run it is folded in (which marks
        its frames on the wire)."""
        line = self._units.get(speech_id) or self._folded.get(speech_id)
        if line is not None and line in self.children:
            self.index = list(self.children).index(line)

    def unit_line(self, speech_id: int) -> UnitLine | None:
        """The entry of a unit, if it is shown."""
        return self._units.get(speech_id)

    def _append(self, line: Line) -> None:
        self._last = line
        self.append(line)
        if not self.has_focus:
            self.call_after_refresh(self.scroll_end, animate=False)

    def on_list_view_highlighted(self, event: ListView.Highlighted) -> None:
        """Tell the app which unit is selected."""
        event.stop()
        item = event.item
        self.post_message(self.UnitSelected(item.speech_id if isinstance(item, UnitLine) else None))
