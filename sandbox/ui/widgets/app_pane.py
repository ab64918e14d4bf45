"""The app pane: the RTVI plane as the app sees it — the brain's ui-commands and
server-messages arriving, and the app's own frames going out."""

from __future__ import annotations

import json

from rich.text import Text
from textual.widgets import RichLog

from sandbox.call.brain_frames import recorded_rtvi
from sandbox.record.plain_text import visible
from sandbox.record.recorder import FrameRecord
from sandbox.wire.catalog import rtvi_spelling

_ARROWS = {"brain": "brain → app", "app": "app → brain"}


def _data(data: str) -> str:
    """Compact JSON when it parses, the raw string when it does not."""
    try:
        return json.dumps(json.loads(data), ensure_ascii=False) if data else ""
    except json.JSONDecodeError:
        return data


def app_line(source: str, rtvi_type: str, data: str, rtvi_id: str | None) -> str:
    """``brain → app ui-command id=7 {"command": "show_hours"}`` (:func:`visible`)."""
    line = f"{_ARROWS.get(source, source)} {rtvi_type}"
    if rtvi_id:
        line += f" id={rtvi_id}"
    return visible(f"{line} {_data(data)}".rstrip())


def app_frame_of(record: FrameRecord) -> tuple[str, str, str | None] | None:
    """An RTVI frame the app sent (type, data, id) from the wire record, or None."""
    if not recorded_rtvi(record.type) or record.dir != "out":
        return None
    fields = record.fields
    return rtvi_spelling(fields.get("type", 0)), fields.get("data", ""), fields.get("id")


class AppPane(RichLog):
    """One line per RTVI message between the app and the brain."""

    DEFAULT_CSS = """
    AppPane { height: 1fr; min-height: 4; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(wrap=True, markup=False, id=id)
        self.lines_shown: list[str] = []

    def show(self, source: str, rtvi_type: str, data: str, rtvi_id: str | None) -> None:
        """Add one message; ``source`` is "brain" (to the app) or "app" (to the brain)."""
        line = app_line(source, rtvi_type, data, rtvi_id)
        self.lines_shown.append(line)
        self.write(Text(line, style="green" if source == "brain" else "cyan"))
