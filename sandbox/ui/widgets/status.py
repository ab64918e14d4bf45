"""The status line: call state, mic meter, watermark, capabilities, config, latency."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from rich.text import Text
from textual.widgets import Static

from sandbox.call.effects import CallState
from sandbox.record.plain_text import visible
from sandbox.wire import pb

_STATE_STYLES: dict[str, str] = {
    CallState.LISTENING: "bold green",
    CallState.CALLER_SPEAKING: "bold cyan",
    CallState.THINKING: "bold yellow",
    CallState.SPEAKING: "bold magenta",
    CallState.PAUSED: "bold blue",
    CallState.INTERRUPTED: "bold red",
    CallState.ENDED: "bold",
}


def capability_names(capabilities: Iterable[int]) -> str:
    """``speech_cancel, turn_steps``; a value this build does not know shows as its number."""
    names = []
    for cap in capabilities:
        known = cap in pb.Capability.values()
        names.append(
            pb.Capability.Name(cap).removeprefix("CAPABILITY_").lower() if known else str(cap)
        )
    return ", ".join(names) or "none"


@dataclass(frozen=True)
class StatusInfo:
    """Everything the status line shows."""

    state: str = "starting"  # a CallState once the call is up
    meter: str = ""
    watermark: int = 0
    capabilities: str = ""
    config: str = ""
    latency: str = ""


def status_text(info: StatusInfo) -> Text:
    """Three lines: state and call facts; the config in force; the last turn's latency."""
    text = Text("● ", style=_STATE_STYLES.get(info.state, "bold yellow"))
    # A state may be a step of dialing, which quotes the brain's URL or its refusal.
    text.append(visible(info.state), style=_STATE_STYLES.get(info.state, "bold yellow"))
    for part in (info.meter, f"watermark {info.watermark}", f"capabilities {info.capabilities}"):
        text.append("   ")
        text.append(part)
    text.append("\nconfig  ", style="bold")
    text.append(info.config or "—")
    text.append("\nlatency ", style="bold")
    text.append(info.latency or "no caller turn yet")
    return text


class StatusLine(Static):
    """The status line. ``show(**changes)`` updates some fields and redraws."""

    DEFAULT_CSS = """
    StatusLine {
        height: 3;
        padding: 0 1;
        background: $boost;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.info = StatusInfo()

    def on_mount(self) -> None:
        """Draw the empty status."""
        self.update(status_text(self.info))

    def show(self, **changes: Any) -> None:
        """Change some of the fields (see :class:`StatusInfo`) and redraw if anything moved."""
        info = replace(self.info, **changes)
        if info != self.info:
            self.info = info
            # Its size is fixed (three lines, the screen's width): no layout of the whole
            # screen, which the meter's ten redraws a second would otherwise cost.
            self.update(status_text(info), layout=False)
