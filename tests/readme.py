"""The README's own words, for tests that follow them: its code blocks by section."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def section(heading: str) -> str:
    """The text under ``heading`` (a ``##`` or ``###`` title), up to the next title."""
    text = README.read_text()
    match = re.search(rf"^#+ {re.escape(heading)}\n(.*?)(?=^#+ |\Z)", text, re.M | re.S)
    assert match is not None, f"README has no section {heading!r}"
    return match.group(1)


def code_block(heading: str, language: str, index: int = 0) -> str:
    """The ``index``-th fenced ``language`` block under ``heading``."""
    blocks = re.findall(rf"^```{language}\n(.*?)^```", section(heading), re.M | re.S)
    assert len(blocks) > index, f"README's {heading!r} has no {language} block #{index}"
    return str(blocks[index])


def commands(heading: str, program: str = "sandbox") -> list[list[str]]:
    """Every inline ``program …`` command under ``heading``, split into words (a command
    broken across lines in the Markdown source is joined again)."""
    found = re.findall(rf"`({program} [^`]+)`", section(heading).replace("\n", " "))
    return [command.split() for command in found]
