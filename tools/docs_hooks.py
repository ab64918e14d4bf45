"""The CLI's help and the SDK's API, quoted from the code itself into the docs, and the
MkDocs hook (``hooks:`` in mkdocs.yml) that keeps the built site's copy fresh.

Between ``<!-- cli-help: sandbox sessions show -->`` and ``<!-- /cli-help -->`` a page holds
a text block of what ``sandbox sessions show --help`` prints, taken from the real argument
parser; between ``<!-- api: sandbox.sdk.Brain -->`` and ``<!-- /api -->``, the object's
signature and docstring (and a class's public methods and properties), as Markdown.
``python tools/docs_hooks.py`` writes them into docs/cli.md and docs/reference/api.md
(committed, so the pages read whole on a code host too); ``tests/test_docs.py`` fails when a
committed copy is stale, and the site's build quotes the code again, without the markers.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import re
from pathlib import Path
from typing import Any

from sandbox.cli import command_parser

MARKER = re.compile(
    r"^<!-- (?P<kind>cli-help|api): (?P<what>[\w. -]+?) -->\n"
    r"(?:(?!<!-- /?(?:cli-help|api)\b).*\n)*"  # the block: lines up to its closing marker
    r"<!-- /(?P=kind) -->$",
    re.M,
)
DOCS = Path(__file__).resolve().parents[1] / "docs"
#: The pages whose blocks ``python tools/docs_hooks.py`` writes.
PAGES = (DOCS / "cli.md", DOCS / "reference" / "api.md")
#: Sphinx roles in docstrings (``:class:`~sandbox.sdk.Brain```), read as code on a page.
ROLE = re.compile(r":[a-z]+:`~?(?:[\w.]+\.)?([\w.]+)`")
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


def api_markdown(path: str) -> str:
    """The object ``path`` names (``sandbox.sdk.Brain``) as Markdown: its signature, its
    docstring, and a class's own public methods and properties, in source order."""
    module, _, name = path.rpartition(".")
    obj = getattr(importlib.import_module(module), name)
    if not inspect.isclass(obj) and not inspect.isfunction(obj):
        return f"### `{name}`\n\n{_doc(_alias_comment(obj, name))}"
    if obj.__name__ != name:  # another name for a class on this page
        return f"### `{name}`\n\nThe same class as `{obj.__name__}`."
    lines = [f"### `{name}{_signature(obj)}`", "", _doc(inspect.getdoc(obj))]
    if inspect.isclass(obj):
        for member, value in vars(obj).items():
            if member.startswith("_") or not (inspect.isfunction(value) or _is_property(value)):
                continue
            shown = member if _is_property(value) else f"{member}{_signature(value)}"
            lines += ["", f"#### `{name}.{shown}`", "", _doc(inspect.getdoc(value))]
    return "\n".join(lines).rstrip()


class _Written(str):
    """An annotation as its source wrote it (the SDK's are strings, postponed): shown as is."""

    def __repr__(self) -> str:
        return str(self)


def _signature(obj: Any) -> str:
    """``(name: type = default, ...) -> type`` as the source wrote the types; a class's
    without its constructor's ``-> None``."""
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):  # a builtin's, or none to read
        return "(...)"

    def written(annotation: Any) -> Any:
        return _Written(annotation) if isinstance(annotation, str) else annotation

    params = [p.replace(annotation=written(p.annotation)) for p in signature.parameters.values()]
    returns = inspect.Signature.empty if inspect.isclass(obj) else signature.return_annotation
    return str(signature.replace(parameters=params, return_annotation=written(returns)))


def _is_property(value: Any) -> bool:
    return isinstance(value, property | functools.cached_property)


def _alias_comment(obj: Any, name: str) -> str:
    """A module-level alias's ``#:`` comment and its assignment, from the SDK's source."""
    for source in sorted((DOCS.parent / "sdk" / "sandbox" / "sdk").glob("*.py")):
        text = source.read_text("utf-8")
        found = re.search(rf"((?:^#: .*\n)*)^{name} = (.+)$", text, re.M)
        if found:
            said = " ".join(line.removeprefix("#: ") for line in found[1].splitlines())
            return f"`{name} = {found[2]}`\n\n{said}".rstrip()
    return repr(obj)


def _doc(text: str | None) -> str:
    """A docstring as Markdown: roles and double backticks read as code."""
    return ROLE.sub(r"`\1`", (text or "").replace("``", "`"))


def refreshed(markdown: str, *, markers: bool = True) -> str:
    """The page with each block holding what it names now (a command's help, an object's
    API); without ``markers``, the blocks alone (as the built site shows them)."""

    def block(match: re.Match[str]) -> str:
        kind, what = match["kind"], match["what"]
        if kind == "cli-help":
            quoted = fenced(cli_help(what.removeprefix("sandbox").split()))
        else:
            quoted = api_markdown(what)
        if not markers:
            return quoted
        return f"<!-- {kind}: {what} -->\n{quoted}\n<!-- /{kind} -->"

    return MARKER.sub(block, markdown)


def on_page_markdown(markdown: str, **_: Any) -> str:
    """The site's copy of a page: every cli-help block quoted from the CLI as installed."""
    return refreshed(markdown, markers=False)


if __name__ == "__main__":
    for page in PAGES:
        page.write_text(refreshed(page.read_text("utf-8")), "utf-8")
        print(f"wrote {page}")
