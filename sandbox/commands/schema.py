"""``sandbox schema``: the JSON Schema of what the sandbox writes, for scripts that read it."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from sandbox.commands.bench import bench_schemas
from sandbox.record.report import report_schema

HELP = "print the JSON Schema of a file the sandbox writes (the call's report, the bench's figures)"

#: What ``sandbox schema`` can print, by name: the report, and the bench's results where the
#: bench is installed (``bench``, and each mode run on its own as ``bench-MODE``).
SCHEMAS: dict[str, Callable[[], dict[str, Any]]] = {"report": report_schema, **bench_schemas()}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sandbox schema``."""
    modes = ", ".join(name for name in SCHEMAS if name.startswith("bench-"))
    bench = (
        f"; bench: the figures `sandbox bench --json` prints; {modes}: the figures each "
        "mode prints run on its own (`sandbox bench --soak 10 --json`)"
        if "bench" in SCHEMAS
        else "; the bench's, where it is installed (pip install '.[bench]' in the checkout)"
    )
    parser.add_argument(
        "what",
        choices=sorted(SCHEMAS),
        help="report: the report `sandbox call --report` and `sandbox sessions export --json` "
        f"write{bench}",
    )


def run(args: argparse.Namespace) -> int:
    """Print the schema (JSON Schema 2020-12) to stdout."""
    print(json.dumps(SCHEMAS[args.what](), indent=2, ensure_ascii=False))
    return 0
