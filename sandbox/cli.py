"""The ``sandbox`` command line: one sub-command per module in ``sandbox.commands``."""

from __future__ import annotations

import argparse
import ast
import contextlib
import errno
import importlib
import importlib.util
import logging
import os
import select
import signal
import sqlite3
import sys
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from sandbox.errors import UserError
from sandbox.logs import log_path, logging_to_file
from sandbox.malloc_tuning import tune_malloc
from sandbox.option_values import shown
from sandbox.paths import data_dir
from sandbox.record.store import full_disk, is_full, store_path

#: Sub-commands, in the order ``sandbox --help`` lists them. Each module has
#: ``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int``.
COMMANDS = (
    "run",
    "demo",
    "call",
    "test",
    "sessions",
    "replay",
    "export",
    "audit",
    "check",
    "load",
    "brain",
    "keys",
    "schema",
    "devices",
    "voices",
    "bench",
    "docs",
)


def _load(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(f"sandbox.commands.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"sandbox.commands.{name}":
            return None  # not built yet in this checkout
        raise


class CommandParser(argparse.ArgumentParser):
    """A parser whose unrecognized arguments are refused by the (sub-)command they were
    given to, with its own usage (argparse leaves them to the top level's, whose usage
    says nothing of the sub-command's options)."""

    def parse_known_args(
        self, args: Iterable[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        """Parse, refusing what is left over."""
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(map(shown, extras))}")
        return parsed, extras

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        """A value that is none of the choices, quoted short and escaped, with the choices
        as they are typed (argparse quotes it whole and lists their reprs)."""
        if action.choices is not None and value not in action.choices:
            choices = ", ".join(map(str, action.choices))
            raise argparse.ArgumentError(
                action, f"{shown(str(value))} is not one of the choices: {choices}"
            )


def _constant(module: str, name: str) -> str | None:
    """The string constant ``name`` of ``module``, read from its source without importing
    it (following ``HELP = OTHER`` and ``from … import OTHER``); None when there is none."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return None
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    return _constant(node.module, alias.name)
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            if isinstance(node.value, ast.Name):
                return _constant(module, node.value.id)
            value = ast.literal_eval(node.value)
            return value if isinstance(value, str) else None
    return None


def build_parser(commands: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser. The sub-commands in ``commands`` (all of them when None) are
    loaded with their options; the others are listed by their one-line help alone, read
    from their source, so ``sandbox --help`` and one command's run load only what that
    command uses (not the speech stack, when it needs none)."""
    parser = CommandParser(
        prog="sandbox",
        description="A mini Voqalize in your terminal.",
        epilog=f"Every call is recorded while it runs (a killed one too) in {store_path()}; "
        "`sandbox sessions list` shows them.",
    )
    subs = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        if commands is not None and name not in commands:
            line = _constant(f"sandbox.commands.{name}", "HELP")
            if line is not None:
                subs.add_parser(name, help=line, description=line)
            continue
        module = _load(name)
        if module is None:
            continue
        sub = subs.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(sub)
        sub.set_defaults(_module=module)
    return parser


def command_parser(words: Sequence[str]) -> argparse.ArgumentParser:
    """The parser of the (sub-)command ``words`` names, e.g. ``["sessions", "show"]``; ``[]``
    is ``sandbox`` itself. The docs quote its help (``docs/hooks/cli_help.py``)."""
    parser = build_parser()
    for word in words:
        subs = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        if subs is None or word not in subs.choices:
            raise KeyError(f"{parser.prog} has no sub-command {word!r}")
        parser = subs.choices[word]
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``sandbox`` console script."""
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser(words[:1] if words and words[0] in COMMANDS else ())
    except UserError as exc:  # a command whose part is not installed here (the bench)
        print(f"sandbox {words[0]}: {exc}", file=sys.stderr)
        return exc.exit_status
    args = parser.parse_args(words)
    module: ModuleType | None = getattr(args, "_module", None)
    if module is None:
        parser.print_help()
        return 2
    with contextlib.ExitStack() as logging_on:
        if args.command != "brain":  # a brain server logs to its console on purpose
            logging_on.enter_context(logging_to_file())
        tune_malloc()
        code = _run(module, args)
        try:
            sys.stdout.flush()  # now, so a reader that went away is met here, not at exit
        except BrokenPipeError:
            return _reader_gone()
        return code


def _run(module: ModuleType, args: argparse.Namespace) -> int:
    """Run a command; what goes wrong is words on the terminal and the details in the log."""
    try:
        code: int = module.run(args)
    except UserError as exc:
        print(f"sandbox {args.command}: {exc}", file=sys.stderr)
        return exc.exit_status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError as exc:
        return _reader_gone() if _stdout_closed() else _unexpected(args, exc)
    except (OSError, sqlite3.Error) as exc:
        full = _full(exc)
        if full is None:
            return _unexpected(args, exc)
        print(f"sandbox {args.command}: {full}", file=sys.stderr)
        return 1
    except Exception as exc:
        return _unexpected(args, exc)
    return code


def _stdout_closed() -> bool:
    """Whether the reader of our output has closed its end (``sandbox ... | head``): a
    pipe's writing end then polls as an error."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll() (Windows), no real stdout
        return False


def _reader_gone() -> int:
    """The reader went away: stop quietly, as a Unix tool killed by SIGPIPE does (the
    shell sees 128 + SIGPIPE). What is still buffered goes nowhere, not into an error at
    exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 128 + signal.SIGPIPE


def _full(exc: OSError | sqlite3.Error) -> UserError | None:
    """A full disk, in words naming the folder it holds; None for any other failure."""
    if isinstance(exc, sqlite3.Error):
        return full_disk(data_dir()) if is_full(exc) else None
    if exc.errno != errno.ENOSPC:
        return None
    return full_disk(Path(exc.filename).parent if exc.filename else data_dir())


def _unexpected(args: argparse.Namespace, exc: Exception) -> int:
    """A bug of ours: words on the terminal, the traceback in the log."""
    logging.getLogger("sandbox").error("sandbox %s failed", args.command, exc_info=exc)
    print(
        f"sandbox {args.command}: unexpected error ({type(exc).__name__}: {exc}).\n"
        f"  The details are in {log_path()}; please report them.",
        file=sys.stderr,
    )
    return 70


if __name__ == "__main__":
    sys.exit(main())
