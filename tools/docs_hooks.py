"""MkDocs hook (``hooks:`` in mkdocs.yml): the CLI's help, quoted from the CLI itself.

A page line ``<!-- cli-help: sandbox sessions show -->`` becomes a text block holding what
``sandbox sessions show --help`` prints, taken from the real argument parser at build time,
so the docs cannot drift from the command line.
"""

from __future__ import annotations

import os
import re
from typing import Any

from sandbox.cli import command_parser

MARKER = re.compile(r"^<!-- cli-help: sandbox((?: [a-z-]+)*) -->$", re.M)
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


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Replace each cli-help marker on a page with the help it names."""
    return MARKER.sub(lambda m: fenced(cli_help(m.group(1).split())), markdown)
