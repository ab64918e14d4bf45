"""A rich :class:`~rich.table.Table` as plain lines for a terminal summary or a log: no
colour, no wrapping (a long cell stays on its line), no trailing spaces."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

#: Wide enough that no summary's row is ever wrapped.
_WIDTH = 1000


def table_lines(table: Table) -> list[str]:
    """``table`` rendered as text, one string a line."""
    # Cells are text, never markup: a "[...]" in one is shown as it is.
    console = Console(width=_WIDTH, color_system=None, markup=False, highlight=False, emoji=False)
    with console.capture() as out:
        console.print(table)
    return [line.rstrip() for line in out.get().splitlines()]
