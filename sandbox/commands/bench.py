"""``sandbox bench``: latency, heard-text accuracy, echo and memory figures on this machine.

The bench is development tooling, a distribution of its own outside the app's wheel
(voqalize-sandbox-bench: ``sandbox_bench``, in the repository's ``bench/``). This module is
the app's one door to it: the bench is imported only when ``sandbox bench`` runs or a bench
schema is asked for, and where it is not installed the command says how to install it.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any, cast

from sandbox.errors import UsageError

HELP = "measure latency, heard-text accuracy, echo and memory of the real audio path"

#: Said, as ``sandbox bench``'s one line, where the bench is not installed.
NOT_INSTALLED = (
    "the bench is not installed (it is development tooling, voqalize-sandbox-bench, outside "
    "the app's wheel): in the sandbox's checkout, pip install '.[bench]'"
)


def bench_module(name: str) -> ModuleType:
    """The bench's module ``sandbox_bench.NAME``; a :class:`UsageError` (exit 2) saying how
    to install the bench where it is not installed."""
    try:
        return importlib.import_module(f"sandbox_bench.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != "sandbox_bench":
            raise  # the bench is there and something it imports is not: a bug to report
        raise UsageError(NOT_INSTALLED) from None


def bench_schemas() -> dict[str, Callable[[], dict[str, Any]]]:
    """The JSON Schemas of the bench's results, by the names ``sandbox schema`` prints them
    by (``bench``, ``bench-MODE``); none where the bench is not installed."""
    try:
        schemas = bench_module("result_schema")
    except UsageError:
        return {}
    return cast(dict[str, Callable[[], dict[str, Any]]], schemas.SCHEMAS)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The bench's own options (``sandbox_bench.command``)."""
    bench_module("command").add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Run the bench (``sandbox_bench.command``)."""
    return cast(int, bench_module("command").run(args))
