"""The wire pane: every frame both ways as it crosses, filterable by type, with a detail view.

The frames of the unit selected in the conversation are marked, so heard text and the
wire line up. Highlighting a row shows the whole frame below the table.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Input, Static

from sandbox.call.brain_frames import recorded_opens_unit
from sandbox.record.recorder import FrameRecord
from sandbox.ui.frame_text import (
    ARROWS,
    frame_detail,
    frame_speech,
    frame_summary,
    frame_turn,
    matches,
    parse_filter,
)

COLUMNS = ("t ms", "dir", "type", "turn", "unit", "fields")
_MARKED = "bold black on yellow"


class WirePane(Vertical):
    """A filter box, the frame table and the selected frame in full."""

    DEFAULT_CSS = """
    WirePane { height: 3fr; }
    WirePane #wire-filter { height: 3; }
    WirePane #wire-table { height: 1fr; min-height: 4; }
    WirePane #wire-detail-box { height: 1fr; max-height: 12; border-top: solid $primary; }
    """

    def __init__(self, keeps: int | None = None, **kwargs: Any) -> None:
        """``keeps``: show only the latest this many frames (None: every frame)."""
        super().__init__(**kwargs)
        self.records: list[FrameRecord] = []
        self.keeps = keeps
        self._first = 0  # the number of records[0] among every frame added: rows' keys
        self.marked_unit: int | None = None
        self._terms: tuple[str, ...] = ()
        self._turn_of_unit: dict[int, int] = {}

    def compose(self) -> ComposeResult:
        """Filter, table, detail."""
        yield Input(
            placeholder="filter by type: speech finalize, or -turn_step to hide", id="wire-filter"
        )
        table: DataTable[Text] = DataTable(id="wire-table", cursor_type="row", zebra_stripes=True)
        table.add_columns(*COLUMNS)
        yield table
        with VerticalScroll(id="wire-detail-box"):
            yield Static("select a frame to see all of it", id="wire-detail")

    @property
    def table(self) -> DataTable[Text]:
        """The frame table."""
        return self.query_one("#wire-table", DataTable)

    def add(self, record: FrameRecord) -> None:
        """A frame crossed: record it and show it if it passes the filter."""
        self.add_many([record])

    def add_many(self, records: list[FrameRecord]) -> None:
        """Frames crossed, oldest first: recorded, shown if they pass the filter, and the
        oldest forgotten past ``keeps`` (in one redraw, not one per frame)."""
        if self.keeps is not None:
            records = records[-2 * self.keeps :]
        rows: list[tuple[int, FrameRecord]] = []
        for record in records:
            rows.append((self._first + len(self.records), record))
            self.records.append(record)
            speech_id = record.fields.get("speech_id")
            if recorded_opens_unit(record.type) and isinstance(speech_id, int):
                self._turn_of_unit[speech_id] = int(record.fields.get("turn_id", 0))
        if self.keeps is not None and len(self.records) >= 2 * self.keeps:
            # Forget the older half at once (a rebuild every ``keeps`` frames, not one per
            # frame): the table's cost grows with its rows.
            dropped = len(self.records) - self.keeps
            del self.records[:dropped]
            self._first += dropped
            self._rebuild()
        else:
            shown = [(index, r) for index, r in rows if matches(r, self._terms)]
            if not shown:
                return
            for index, record in shown:
                self._add_row(index, record)
        if not self.table.has_focus:
            self.table.scroll_end(animate=False)

    def reset(self) -> None:
        """Empty the pane (a replay moving back redraws it from the start)."""
        self.records = []
        self._first = 0
        self._turn_of_unit = {}
        self.table.clear()

    def focus_filter(self) -> None:
        """Put the cursor in the filter box."""
        self.query_one("#wire-filter", Input).focus()

    def mark_unit(self, speech_id: int | None) -> None:
        """Mark the frames of one speech unit (None: mark nothing)."""
        if speech_id != self.marked_unit:
            self.marked_unit = speech_id
            self._rebuild()

    def marked_rows(self) -> list[FrameRecord]:
        """The frames currently marked, in order."""
        return [r for r in self._shown() if self._is_marked(r)]

    def shown_records(self) -> list[FrameRecord]:
        """The frames the filter lets through, in order."""
        return list(self._shown())

    def on_input_changed(self, event: Input.Changed) -> None:
        """The filter changed: show only the matching frames."""
        if event.input.id == "wire-filter":
            event.stop()
            self._terms = parse_filter(event.value)
            self._rebuild()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """Show the highlighted frame in full."""
        event.stop()
        key = event.row_key.value
        if key is not None and int(key) >= self._first:
            detail = frame_detail(self.records[int(key) - self._first])
            self.query_one("#wire-detail", Static).update(Text(detail))

    def _shown(self) -> list[FrameRecord]:
        return [r for r in self.records if matches(r, self._terms)]

    def _is_marked(self, record: FrameRecord) -> bool:
        return self.marked_unit is not None and record.fields.get("speech_id") == self.marked_unit

    def _add_row(self, index: int, record: FrameRecord) -> None:
        style = _MARKED if self._is_marked(record) else ""
        cells = (
            str(record.t_ms),
            ARROWS.get(record.dir, record.dir),
            record.type,
            frame_turn(record, self._turn_of_unit),
            frame_speech(record),
            frame_summary(record),
        )
        self.table.add_row(*(Text(c, style=style) for c in cells), key=str(index))

    def _rebuild(self) -> None:
        table = self.table
        table.clear()
        first_marked: int | None = None
        for index, record in enumerate(self.records, start=self._first):
            if matches(record, self._terms):
                if first_marked is None and self._is_marked(record):
                    first_marked = table.row_count
                self._add_row(index, record)
        if first_marked is not None:
            table.move_cursor(row=first_marked)
