"""The settings screen: change voice, patience and idle mid-call, as a brain's Config would."""

from __future__ import annotations

import re
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from sandbox.call.settings import Settings
from sandbox.record.plain_text import visible
from sandbox.wire import pb
from sandbox.wire.catalog import voice_name

_WHOLE = re.compile(r"\d{1,9}")


def config_delta(current: Settings, voice: int, patience: str, idle_ms: str) -> pb.Config | str:
    """A Config naming only what changed, or words saying which entry is not a number.

    Range checks are left to the call, which refuses a patience off the scale in the same
    words a brain's Config meets.
    """
    config = pb.Config()
    if voice != current.voice:
        config.tts.voice = voice  # type: ignore[assignment]
    for name, text in (("patience", patience), ("idle", idle_ms)):
        if text.strip() and not _WHOLE.fullmatch(text.strip()):
            return f"{name} must be a whole number, 0 or more"
    if patience.strip() and int(patience) != current.effective_patience:
        config.stt.patience = int(patience)
    if idle_ms.strip() and int(idle_ms) != current.idle_ms:
        config.idle.timeout_ms = int(idle_ms)
    return config


class SettingsScreen(ModalScreen[pb.Config | None]):
    """A small form; Apply returns the Config delta, escape returns None."""

    DEFAULT_CSS = """
    SettingsScreen { align: center middle; }
    SettingsScreen > Vertical {
        width: 64; height: auto; border: thick $primary; background: $surface; padding: 1 2;
    }
    SettingsScreen Label { margin-top: 1; }
    SettingsScreen #settings-error { color: $error; height: auto; }
    SettingsScreen Horizontal { height: auto; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel")]

    def __init__(self, current: Settings) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        """Voice, patience, idle, and the buttons."""
        current = self.current
        voices = [(voice_name(v), v) for v in pb.Voice.values() if v != pb.VOICE_UNSPECIFIED]
        with Vertical():
            yield Static("[b]Change the call's settings[/b] (they land as a brain's Config)")
            yield Label("voice (from the next unit)")
            yield Select(voices, value=current.voice, allow_blank=False, id="voice")
            yield Label("patience 0..10 (immediately)")
            yield Input(str(current.effective_patience), type="integer", id="patience")
            yield Label("idle timeout in ms, 0 = off (immediately)")
            yield Input(str(current.idle_ms), type="integer", id="idle")
            yield Static("", id="settings-error")
            with Horizontal():
                yield Button("Apply", variant="primary", id="apply")
                yield Button("Cancel", id="cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Apply or cancel."""
        if event.button.id == "apply":
            self._apply()
        else:
            self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in a field applies."""
        event.stop()
        self._apply()

    def action_cancel(self) -> None:
        """Close without changing anything."""
        self.dismiss(None)

    def _apply(self) -> None:
        voice = self.query_one("#voice", Select).value
        delta = config_delta(
            self.current,
            int(voice) if isinstance(voice, int) else self.current.voice,
            self.query_one("#patience", Input).value,
            self.query_one("#idle", Input).value,
        )
        if isinstance(delta, str):
            # The problem quotes what was typed: plain text, never markup.
            self.query_one("#settings-error", Static).update(Text(visible(delta)))
            return
        self.dismiss(delta)
