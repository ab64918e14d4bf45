"""The banner: why there is no sound and how to get it (hidden when audio is real)."""

from __future__ import annotations

from textual.widgets import Static


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
    """

    def say(self, text: str) -> None:
        """Show ``text``; an empty text hides the banner."""
        self.update(text)
        self.set_class(not text, "-hidden")
