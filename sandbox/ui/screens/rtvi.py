"""The app-frame screen: send one RTVI message from the app to the brain."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from sandbox.record.plain_text import visible
from sandbox.wire.catalog import APP_RTVI_TYPES, RTVI_NAME_BY_TYPE

#: The app's half of the whitelist that crosses as a message (send-text is a caller turn).
APP_TYPES = tuple(sorted(RTVI_NAME_BY_TYPE[t] for t in APP_RTVI_TYPES))
DEFAULT_DATA = '{"event": "tap", "target": "pricing"}'


@dataclass(frozen=True)
class AppFrame:
    """An RTVI message for the brain: its type, JSON data and optional id."""

    type: str
    data: str
    id: str | None


def app_frame(rtvi_type: str, data: str, rtvi_id: str) -> AppFrame | str:
    """The frame to send, or words saying why the data is not JSON."""
    try:
        json.loads(data)
    except json.JSONDecodeError as exc:
        return f"data is not valid JSON ({exc.msg} at column {exc.colno})"
    return AppFrame(rtvi_type, data, rtvi_id.strip() or None)


class RtviScreen(ModalScreen[AppFrame | None]):
    """A small form; Send returns the frame, escape returns None."""

    DEFAULT_CSS = """
    RtviScreen { align: center middle; }
    RtviScreen > Vertical {
        width: 72; height: auto; border: thick $primary; background: $surface; padding: 1 2;
    }
    RtviScreen Label { margin-top: 1; }
    RtviScreen #rtvi-error { color: $error; height: auto; }
    RtviScreen Horizontal { height: auto; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel")]

    def compose(self) -> ComposeResult:
        """Type, data, id, and the buttons."""
        with Vertical():
            yield Static("[b]Send an RTVI message from the app to the brain[/b]")
            yield Label("type")
            yield Select(
                [(t, t) for t in APP_TYPES], value="ui-event", allow_blank=False, id="rtvi-type"
            )
            yield Label("data (JSON)")
            yield Input(DEFAULT_DATA, id="rtvi-data")
            yield Label("id (optional)")
            yield Input("", id="rtvi-id")
            yield Static("", id="rtvi-error")
            with Horizontal():
                yield Button("Send", variant="primary", id="send")
                yield Button("Cancel", id="cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Send or cancel."""
        if event.button.id == "send":
            self._send()
        else:
            self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in a field sends."""
        event.stop()
        self._send()

    def action_cancel(self) -> None:
        """Close without sending."""
        self.dismiss(None)

    def _send(self) -> None:
        rtvi_type = self.query_one("#rtvi-type", Select).value
        frame = app_frame(
            str(rtvi_type),
            self.query_one("#rtvi-data", Input).value,
            self.query_one("#rtvi-id", Input).value,
        )
        if isinstance(frame, str):
            # The problem quotes what was typed: plain text, never markup.
            self.query_one("#rtvi-error", Static).update(Text(visible(frame)))
            return
        self.dismiss(frame)
