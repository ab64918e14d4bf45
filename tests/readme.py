"""The docs' own words, for tests that follow them: their code blocks by section.

A section is looked for in README.md and every page under docs/, and must be in exactly one
of them, so a section can move between pages and a test still reads the one the docs show."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"


def pages() -> list[Path]:
    """README.md and every Markdown page of the documentation site."""
    return [README, *sorted((REPO / "docs").rglob("*.md"))]


def section(heading: str) -> str:
    """The text under ``heading`` (a title of any level), up to the next title."""
    pattern = re.compile(rf"^#+ {re.escape(heading)}\n(.*?)(?=^#+ |\Z)", re.M | re.S)
    found = [
        (page, match.group(1))
        for page in pages()
        for match in pattern.finditer(page.read_text("utf-8"))
    ]
    where = [str(page.relative_to(REPO)) for page, _ in found]
    assert len(found) == 1, f"the docs have {len(found)} sections {heading!r} (in {where})"
    return found[0][1]


def code_block(heading: str, language: str, index: int = 0) -> str:
    """The ``index``-th fenced ``language`` block under ``heading``."""
    blocks = re.findall(rf"^```{language}\n(.*?)^```", section(heading), re.M | re.S)
    assert len(blocks) > index, f"the docs' {heading!r} has no {language} block #{index}"
    return str(blocks[index])


def commands(heading: str, program: str = "sandbox") -> list[list[str]]:
    """Every inline ``program …`` command under ``heading``, split into words (a command
    broken across lines in the Markdown source is joined again)."""
    found = re.findall(rf"`({program} [^`]+)`", section(heading).replace("\n", " "))
    return [command.split() for command in found]
