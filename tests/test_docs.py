"""The docs stay true: the README's size and its two commands, the site's strict build (links
and anchors checked, the CLI's help quoted from the CLI), and every fenced block in README.md
and docs/ checked by its language: shell blocks are valid bash and each ``sandbox …`` in them
is accepted by the real parser; TOML parses, and a caller script (or a demo scene) is parsed
as the sandbox parses it; Python compiles; JSON parses. A block in any other language fails,
so the rule is known. Blocks that are *run* are run by their own tests (tests/readme.py)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from readme import README, REPO, pages

import sandbox.sdk
from sandbox.caller.script import parse_script
from sandbox.cli import COMMANDS, build_parser
from sandbox.demo.scene import parse_scene
from sandbox.errors import UserError

#: The checkout's code, ahead of anything installed: the app's, the SDK's and the bench's.
CODE_PATH = os.pathsep.join(str(REPO / folder) for folder in ("", "sdk", "bench"))
#: The README's two commands, byte for byte: CI (.ci/run) and the newcomer's walk run them.
INSTALL_AND_RUN = "```sh\npip install . && sandbox run\n```"
RUN_THE_TESTS = (
    "```sh\nbash tools/setup-test-env && pip install -e '.[dev]' "
    "&& pip install --no-deps -e ./sdk -e ./bench && bash tools/check\n```"
)
FENCE = re.compile(
    r"^(?P<indent>[ ]*)(?P<fence>`{3,})(?P<lang>[\w-]*)[^\n]*\n"
    r"(?P<body>.*?)^(?P=indent)(?P=fence)[ ]*$",
    re.M | re.S,
)
#: Words between commands in a shell line, and redirections that end a command's arguments.
SEPARATORS = {"&&", "||", "|", ";", "&"}
REDIRECTS = re.compile(r"^\d*[<>]")


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its language and its text."""

    page: Path
    line: int
    language: str
    text: str

    def __str__(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line} ({self.language or 'no language'})"


def blocks() -> list[Block]:
    """Every fenced block in README.md and the docs' pages."""
    found = []
    for page in pages():
        text = page.read_text("utf-8")
        for match in FENCE.finditer(text):
            body = re.sub(rf"^{match['indent']}", "", match["body"], flags=re.M)
            line = text.count("\n", 0, match.start()) + 1
            found.append(Block(page, line, match["lang"], body))
    return found


def test_the_readme_fits_two_screens_and_keeps_its_two_commands() -> None:
    readme = README.read_text("utf-8")
    assert len(readme.encode("utf-8")) <= 10 * 1024
    assert readme.index(INSTALL_AND_RUN) < readme.index(RUN_THE_TESTS)
    assert RUN_THE_TESTS.split("\n")[1] in (REPO / ".ci" / "run").read_text()


def refreshed(page: str) -> str:
    """The page with its cli-help blocks written again (tools/docs_hooks.py)."""
    spec = importlib.util.spec_from_file_location("docs_hooks", REPO / "tools" / "docs_hooks.py")
    assert spec is not None and spec.loader is not None
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    return str(hooks.refreshed(page))


def test_every_command_has_its_help_on_the_command_line_page_as_the_cli_prints_it() -> None:
    cli_page = (REPO / "docs" / "cli.md").read_text("utf-8")
    for name in COMMANDS:
        assert f"<!-- cli-help: sandbox {name} -->" in cli_page, name
    # Committed whole, so the page reads on a code host; stale, it fails here.
    assert refreshed(cli_page) == cli_page, "docs/cli.md is stale: python tools/docs_hooks.py"
    assert cli_page.count("\nusage: sandbox") == cli_page.count("<!-- cli-help: ")
    assert "\\|" not in cli_page


def test_the_api_reference_holds_every_sdk_name_as_the_code_has_it() -> None:
    api_page = (REPO / "docs" / "reference" / "api.md").read_text("utf-8")
    assert refreshed(api_page) == api_page, "api.md is stale: python tools/docs_hooks.py"
    for name in sandbox.sdk.__all__:
        assert f"<!-- api: sandbox.sdk.{name} -->\n### `{name}" in api_page, name
    assert "#### `Brain.on_finalize(self, session: Session, fin: Finalize) -> None`" in api_page
    assert ":class:" not in api_page and ":::" not in api_page


def test_the_site_builds_strictly_with_the_clis_own_help(tmp_path: Path) -> None:
    site = tmp_path / "site"
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": CODE_PATH, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    assert "WARNING" not in built.stderr, built.stderr
    cli_page = (site / "cli" / "index.html").read_text("utf-8")
    assert "cli-help:" not in cli_page
    for words in ([], ["call"], ["sessions", "show"], ["docs"]):
        usage = " ".join(["usage: sandbox", *words])
        assert usage in cli_page, usage
    assert "VoqalizeDriver" in (site / "reference" / "api" / "index.html").read_text("utf-8")


@pytest.mark.parametrize("block", blocks(), ids=str)
def test_a_fenced_block_is_what_its_language_says(block: Block) -> None:
    check = CHECKS.get(block.language)
    assert check is not None, (
        f"{block}: a block's language is one of {', '.join(sorted(CHECKS))}"
        " (text, or none, for what is not checked)"
    )
    check(block)


def _shell(block: Block) -> None:
    """bash -n on the block, and each ``sandbox …`` command in it parsed by the CLI."""
    script = block.text
    if block.language == "console":  # "$ command" lines; the rest is output
        script = "\n".join(line[2:] for line in script.splitlines() if line.startswith("$ "))
    syntax = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True)
    assert syntax.returncode == 0, f"{block}: {syntax.stderr}"
    for command in _sandbox_commands(script):
        _parses(block, command)


def _sandbox_commands(script: str) -> list[list[str]]:
    """Each ``sandbox`` command in a shell script, as its words (up to a redirection)."""
    found = []
    for line in script.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        command: list[str] = []
        redirected = False  # the words after a redirection are its target, not arguments
        for word in [*lexer, ";"]:
            if word in SEPARATORS:
                if command[:1] == ["sandbox"]:
                    found.append(command)
                command, redirected = [], False
            elif REDIRECTS.match(word):
                redirected = True
            elif not redirected:
                command.append(word)
    return found


def _parses(block: Block, command: list[str]) -> None:
    """``command`` is accepted by the real argument parser (parsed, not run)."""
    said = io.StringIO()
    with contextlib.redirect_stderr(said), contextlib.redirect_stdout(io.StringIO()):
        try:
            build_parser().parse_args(command[1:])
        except SystemExit as exc:
            assert exc.code == 0, f"{block}: `{shlex.join(command)}`: {said.getvalue()}"


def _toml(block: Block) -> None:
    """TOML that parses; a caller script or a demo scene parsed as the sandbox parses it."""
    try:
        data = tomllib.loads(block.text)
        if "step" in data:
            steps = data["step"]
            if any(isinstance(s, dict) and "caption" in s for s in steps):
                parse_scene(block.text, str(block))
            else:
                parse_script(block.text, str(block))
    except (tomllib.TOMLDecodeError, UserError) as exc:
        raise AssertionError(f"{block}: {exc}") from None


def _python(block: Block) -> None:
    compile(block.text, str(block), "exec")


def _json(block: Block) -> None:
    json.loads(block.text)


def _not_checked(block: Block) -> None:
    """Text: output, a listing, a diagram's source; nothing to check."""


CHECKS = {
    "sh": _shell,
    "bash": _shell,
    "console": _shell,
    "toml": _toml,
    "python": _python,
    "json": _json,
    "text": _not_checked,
    "mermaid": _not_checked,
    "": _not_checked,
}
