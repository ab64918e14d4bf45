"""The base of the sandbox's apps: a notification is plain text unless a caller of
``notify`` asks for markup.

Textual parses a notification's message as content markup by default, so a brain's error
"[/x]" raised ``MarkupError`` and took the app down, and "[@click=app.quit]q[/]" made a
button of its words. Here the default is plain: the words are shown as written, their
control characters spelt out (:func:`visible`).
"""

from __future__ import annotations

from typing import TypeVar

from textual.app import App
from textual.notifications import SeverityLevel

from sandbox.record.plain_text import visible

ReturnType = TypeVar("ReturnType")


class PlainApp(App[ReturnType]):
    """An app whose notifications show their words as they are."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Notify as Textual does; ``message`` and ``title`` are plain text (controls
        spelt out) unless ``markup`` is asked for, for markup this program wrote itself."""
        if not markup:
            message, title = visible(message), visible(title)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)
