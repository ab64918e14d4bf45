"""Every value of every option of every command, out of range, malformed and hostile:
refused in one line with exit 2 where argparse parses it, never the catch-all and never a
traceback (issue 56). The options are read from the parser itself, so a new one is walked
as soon as it exists; the door is the parser, so the walk parses in-process, and a sample
runs the real CLI to prove it exits 2 as the walk says."""

from __future__ import annotations

import argparse
import contextlib
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_rig import sandbox_cli

from sandbox.cli import build_parser
from sandbox.option_values import name, path

#: What a misbehaving user or script may type, by what is wrong with it.
HOSTILE = {
    "negative": "-1",
    "huge": "9" * 40,
    "thousands of digits": "9" * 4000,
    "non-numeric": "abc",
    "empty": "",
    "control characters": "a\x1b[31mb\x07",
    "a NUL": "a\x00b",
    "a newline": "a\nb",
    "markup": "[b]x[/b]",
    "very long": "x" * 5000,
    "infinite": "inf",
    "not a number": "nan",
}
#: Kinds of value a name (a file, a device, a session id, a module, a URL filter) holds:
#: printable text of any shape names something, and whether it does is asked when the
#: command opens it (a missing file, an unknown device or session are refused in words
#: there, as their own tests show); the parser holds it printable, not empty, not long.
ANY_NAME = {"negative", "huge", "non-numeric", "markup", "infinite", "not a number"}
#: The types whose values are names.
NAMES = (name, path)
#: Options that take a name but check its shape with their own type, and the hostile kinds
#: that shape allows, each with why:
ALSO_ACCEPTED = {
    # A host name of digits, or of letters, is one a resolver may know: whether it is this
    # machine's is found out when the server binds, and said there ("cannot listen on").
    ("brain", "--host"): {"huge", "non-numeric", "infinite", "not a number"},
}
#: A value of each option a command cannot go without, for walking the others.
REQUIRED = {"id": "abc123", "brain": "echo", "url": "echo", "what": "report"}
REQUIRED_OPTIONS = {"--script": "caller.toml", "--older-than": "7d"}


@dataclass(frozen=True)
class Door:
    """One option (or positional) of one (sub-)command."""

    words: tuple[str, ...]
    action: argparse.Action
    others: tuple[str, ...]  # what the command cannot go without, given right

    @property
    def label(self) -> str:
        """How the option is named: ``--port``, or a positional's dest."""
        return self.action.option_strings[0] if self.action.option_strings else self.action.dest

    def argv(self, value: str) -> list[str]:
        """The command line giving ``value`` to this option, every other one left out."""
        if self.action.option_strings:
            return [*self.words, *self.others, f"{self.label}={value}"]
        return [*self.words, *self.others, "--", value]  # "--": a value may start with -


def _doors(parser: argparse.ArgumentParser, words: tuple[str, ...]) -> Iterator[Door]:
    """Every option of ``parser`` and of its sub-commands that takes a value."""
    takes = [a for a in parser._actions if a.nargs != 0 and not _is_subcommands(a)]
    for action in takes:
        flags: list[str] = []
        positionals: list[str] = []
        for other in takes:
            if other is action:
                continue
            if not other.option_strings:
                if other.nargs not in ("*", "?"):
                    positionals.append(REQUIRED[other.dest])
            elif other.required:
                flag = other.option_strings[0]
                flags += [flag, REQUIRED_OPTIONS[flag]]
        # The flags first: a positional walked goes after "--", which ends them.
        yield Door(words, action, (*flags, *positionals))
    for action in parser._actions:
        if _is_subcommands(action):
            assert isinstance(action, argparse._SubParsersAction)
            for word, sub in action.choices.items():
                yield from _doors(sub, (*words, word))


def _is_subcommands(action: argparse.Action) -> bool:
    return isinstance(action, argparse._SubParsersAction)


#: Every command's parser, built once (the walk parses thousands of command lines with it).
PARSER = build_parser()
DOORS = list(_doors(PARSER, ()))


def _accepted(door: Door, kind: str) -> bool:
    """Whether the walk expects ``door`` to take the ``kind`` of hostile value (and why:
    see :data:`ANY_NAME` and :data:`ALSO_ACCEPTED`)."""
    if door.action.type in NAMES and kind in ANY_NAME:
        return True
    return kind in ALSO_ACCEPTED.get((" ".join(door.words), door.label), set())


def _parsed(argv: list[str]) -> tuple[int | None, str]:
    """Parse ``argv`` as ``sandbox`` would: its exit status (None: it parsed) and stderr."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            PARSER.parse_args(argv)
        except SystemExit as exited:
            return int(exited.code or 0), err.getvalue()
    return None, err.getvalue()


def _one_line_refusal(prog: str, stderr: str) -> str:
    """The refusal's one line, after asserting that it is all there is besides the usage."""
    assert "Traceback" not in stderr and "unexpected error" not in stderr, stderr
    usage, _, line = stderr.rstrip("\n").rpartition("\n")
    assert usage.startswith(f"usage: {prog}"), stderr
    assert all(row.startswith(" ") for row in usage.splitlines()[1:]), stderr
    assert line.startswith(f"{prog}: error: argument "), stderr
    assert line.isprintable() and len(line) < 500, line
    return line


def test_the_walk_reaches_every_command_and_the_doors_of_issue_56() -> None:
    walked = {(" ".join(door.words), door.label) for door in DOORS}
    assert {w for w, _ in walked} >= {"run", "call", "load", "replay", "check", "brain", "bench"}
    for door in [("brain", "--port"), ("call", "--brain"), ("load", "--brain"), ("check", "url")]:
        assert door in walked


@pytest.mark.parametrize("door", DOORS, ids=lambda d: f"{' '.join(d.words)} {d.label}")
def test_every_hostile_value_is_refused_in_one_line(door: Door) -> None:
    prog = " ".join(("sandbox", *door.words))
    for kind, value in HOSTILE.items():
        status, stderr = _parsed(door.argv(value))
        if _accepted(door, kind):
            assert status is None, f"{kind} value refused, yet listed as accepted: {stderr}"
            continue
        assert status == 2, f"{door.label} took a value with {kind}: {value[:40]!r}"
        line = _one_line_refusal(prog, stderr)
        assert "\x1b" not in line and "\x00" not in line


def test_the_accepted_kinds_are_still_refused_when_empty_or_unprintable() -> None:
    """A name takes any printable text, never nothing, a control character or a screenful."""
    named = [door for door in DOORS if door.action.type in NAMES]
    assert named
    for door in named:
        for kind in HOSTILE.keys() - ANY_NAME:
            assert _parsed(door.argv(HOSTILE[kind]))[0] == 2, (door.label, kind)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (
            ["brain", "echo", "--port", "99999"],
            "argument --port: must be a whole number from 0 to 65,535 (0: any free port) "
            "(got 99,999)",
        ),
        (
            ["call", "--script", "caller.toml", "--brain", "ws://[::1"],
            "its IPv6 address is not closed or not valid",
        ),
        (
            ["load", "--brain", "ws://127.0.0.1:99999/b", "--script", "caller.toml"],
            "its port is not from 1 to 65,535",
        ),
        (["check", "ws://127.0.0.1:0/brain"], "a port is a whole number from 1 to 65,535, not 0"),
        (["replay", "abc", "--brain", "http://x/brain"], "must be ws:// or wss://, not http://"),
    ],
)
def test_the_real_command_line_exits_2_in_words(
    tmp_path: Path, args: list[str], words: str
) -> None:
    done = sandbox_cli(tmp_path, *args, timeout=60)
    assert done.returncode == 2, done.stderr
    line = _one_line_refusal(f"sandbox {args[0]}", done.stderr)
    assert words in line
    assert done.stdout == ""
