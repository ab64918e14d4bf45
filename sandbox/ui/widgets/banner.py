"""The banner: the devices a call with sound uses, or why there is no sound and how to get it."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from sandbox.record.plain_text import visible


class Banner(Static):
    """A warning strip across the top of the app."""

    DEFAULT_CSS = """
    Banner {
        height: auto;
        padding: 0 1;
        background: $warning 25%;
        color: $text;
    }
    Banner.-hidden { display: none; }
    Banner.-info { background: $primary 15%; }
    """

    def say(self, text: str, *, warn: bool = True) -> None:
        """Show ``text`` (as a warning, or as plain information); an empty text hides it.
        Plain text, never markup: it names devices and files, which may hold brackets."""
        self.update(Text(visible(text)))
        self.set_class(not text, "-hidden")
        self.set_class(not warn, "-info")
