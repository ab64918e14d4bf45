"""The CLI's help, quoted from the CLI itself into docs/cli.md, and the MkDocs hook
(``hooks:`` in mkdocs.yml) that keeps the built site's copy fresh.

Between ``<!-- cli-help: sandbox sessions show -->`` and ``<!-- /cli-help -->`` a page holds
a text block of what ``sandbox sessions show --help`` prints, taken from the real argument
parser. ``python tools/docs_hooks.py`` writes it into docs/cli.md (committed, so the page reads
whole on a code host too); ``tests/test_docs.py`` fails when the committed copy is stale, and
the site's build quotes the installed parser again, without the markers.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from sandbox.cli import command_parser

MARKER = re.compile(
    r"^<!-- cli-help: sandbox(?P<words>(?: [a-z-]+)*) -->\n(?:.*?\n)?<!-- /cli-help -->$",
    re.M | re.S,
)
#: The page whose help blocks ``python tools/docs_hooks.py`` writes.
CLI_PAGE = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
#: The width the help is wrapped to, whatever terminal builds the docs.
COLUMNS = "96"


def cli_help(words: list[str]) -> str:
    """``sandbox WORDS --help`` as argparse prints it, wrapped at :data:`COLUMNS`."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = COLUMNS  # argparse reads the width from the environment
    try:
        return command_parser(words).format_help().rstrip("\n")
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


def fenced(text: str) -> str:
    """``text`` as a fenced text block: a fence longer than any run of backticks in it, so
    the help is shown as it is whatever it holds (Markdown is not read inside a fence)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def refreshed(markdown: str, *, markers: bool = True) -> str:
    """The page with each cli-help block holding the help it names now; without
    ``markers``, the blocks alone (as the built site shows them)."""

    def block(match: re.Match[str]) -> str:
        words = match["words"]
        quoted = fenced(cli_help(words.split()))
        if not markers:
            return quoted
        return f"<!-- cli-help: sandbox{words} -->\n{quoted}\n<!-- /cli-help -->"

    return MARKER.sub(block, markdown)


def on_page_markdown(markdown: str, **_: Any) -> str:
    """The site's copy of a page: every cli-help block quoted from the CLI as installed."""
    return refreshed(markdown, markers=False)


if __name__ == "__main__":
    CLI_PAGE.write_text(refreshed(CLI_PAGE.read_text("utf-8")), "utf-8")
    print(f"wrote the CLI's help into {CLI_PAGE}")
