"""The docs' runnable examples: every ``python`` and ``sh`` block of README.md, sdk/README.md
and docs/, each with how it runs, read from an HTML comment on the line before its fence
(invisible on the rendered page; docs/contributing.md explains it):

``<!-- example: WORD… -->``, the words any of

- ``file NAME``: the block is a file the docs tell the reader to save as NAME; every example
  runs in a folder holding all of them (``mybrain.py``, ``mymodule.py``, ``call.toml``);
- ``serves``: the block serves a brain on the docs' port and runs until stopped;
- ``pytest``: the block is a test file, run by pytest;
- ``sdk``: it runs where only the SDK is installed (``pip install ./sdk``, as its page says);
- ``brain``: it calls a brain at the docs' URL, so one is served there (the built-in concierge, the
  brain a ``session``'s call was placed with, so a re-drive against it changes nothing);
- ``session``: it names a stored session (``ID``, ``3f2a``): a call is placed first;
- ``slow``: it runs with ``-m slow`` only (an example of its kind runs by default);
- ``not run, REASON``: it is not run, for the reason given (a test says which covers it).

A block with no comment runs as it is. A ``toml`` block is read only as a ``file``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: The port every example of the docs uses; each run puts a free one in its place.
DOCS_PORT = "8765"
_FENCE = re.compile(r"^```(python|sh|toml)\n(.*?)^```", re.M | re.S)
_MARK = re.compile(r"<!-- example: (.*?) -->\n\Z", re.S)
#: The words a mark may hold (``file`` and ``not run`` take the rest of theirs).
WORDS = frozenset({"serves", "pytest", "sdk", "brain", "session", "slow"})


@dataclass(frozen=True)
class Example:
    """One block: where it is, its language, its text and its mark's words."""

    page: str
    line: int
    language: str
    text: str
    words: frozenset[str]
    file: str | None  # the name the docs save it under
    not_run: str | None  # why it is not run

    @property
    def id(self) -> str:
        """``page:line``, the test's id."""
        return f"{self.page}:{self.line}"


def pages() -> list[Path]:
    """The pages whose examples run: the two READMEs and every page under docs/."""
    return [REPO / "README.md", REPO / "sdk" / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def examples() -> list[Example]:
    """Every python, sh and toml block of :func:`pages`, in page order."""
    found = []
    for page in pages():
        source = page.read_text("utf-8")
        for fence in _FENCE.finditer(source):
            before = source[: fence.start()]
            last_line = before[before.rstrip("\n").rfind("\n") + 1 :]
            mark = _MARK.search(last_line)
            found.append(_example(page, before.count("\n") + 1, fence, mark))
    return found


def _example(page: Path, line: int, fence: re.Match[str], mark: re.Match[str] | None) -> Example:
    where = f"{page.relative_to(REPO)}:{line}"
    words: set[str] = set()
    file = not_run = None
    rest = mark.group(1).strip() if mark else ""
    if rest.startswith("not run"):
        not_run = rest.removeprefix("not run").lstrip(", ").strip()
        assert not_run, f"{where}: 'not run' needs its reason"
        rest = ""
    for word in rest.split():
        if file == "":
            file = word
        elif word == "file":
            file = ""
        else:
            assert word in WORDS, f"{where}: {word!r} is not an example word ({sorted(WORDS)})"
            words.add(word)
    assert file != "", f"{where}: 'file' needs a name"
    return Example(
        str(page.relative_to(REPO)), line, fence.group(1), fence.group(2), frozenset(words),
        file, not_run,
    )  # fmt: skip


def files() -> dict[str, str]:
    """The files the docs save (``file NAME``), by name; a name is saved by one block only."""
    saved: dict[str, str] = {}
    for example in examples():
        if example.file is not None:
            assert example.file not in saved, f"{example.id}: {example.file} is saved twice"
            saved[example.file] = example.text
    return saved
