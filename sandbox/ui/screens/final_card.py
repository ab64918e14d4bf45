"""The demo's last card: per unit, what the brain generated beside what the caller heard,
and what a runtime that logs generated text would have put in the history instead."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from sandbox.call.units import ShownUnit
from sandbox.record.plain_text import visible


def card_text(scenes: list[tuple[str, Sequence[ShownUnit]]]) -> Text:
    """The card's words: each scene's units, heard in bold, the never-heard rest struck."""
    text = Text()
    text.append("What the caller heard, and what a generated-text log would have kept\n\n",
                style="bold underline")  # fmt: skip
    never = 0
    for title, units in scenes:
        text.append(f"{visible(title)}\n", style="bold")
        for unit in units:
            generated, heard = unit.generated, unit.heard
            rest = generated[len(heard) :].strip()
            text.append(f"  unit {unit.speech_id}: ")
            text.append(visible(heard) or "(nothing)", style="bold")
            if rest:
                text.append(" ")
                text.append(visible(rest), style="dim strike")
                missed = len(generated.split()) - len(heard.split())
                never += missed
                text.append(f"   ✂ {missed} words never heard", style="red")
            text.append("\n")
        text.append("\n")
    text.append(
        f"A runtime that logs generated text would have stored {never} words the caller never "
        "heard as if they had been said. Here every unit got one Finalize with exactly the "
        "words that were played.\n",
        style="bold",
    )
    text.append("\nspace or q: leave the demo", style="dim")
    return text


class FinalCard(ModalScreen[None]):
    """Shown after the last scene."""

    DEFAULT_CSS = """
    FinalCard { align: center middle; }
    FinalCard > VerticalScroll { width: 90%; height: 90%; border: round $accent;
                                 background: $surface; padding: 1 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "dismiss", "leave"),
        Binding("q", "dismiss", "leave"),
    ]

    def __init__(self, scenes: list[tuple[str, Sequence[ShownUnit]]]) -> None:
        super().__init__()
        self._text = card_text(scenes)

    def compose(self) -> ComposeResult:
        """The card, scrollable."""
        with VerticalScroll():
            yield Static(self._text, id="final-card")
