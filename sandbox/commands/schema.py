"""``sandbox schema``: the JSON Schema of what the sandbox writes, for scripts that read it."""

from __future__ import annotations

import argparse
import functools
import json
from collections.abc import Callable
from typing import Any

from sandbox.bench.mode_keys import MODES
from sandbox.bench.result_schema import bench_schema, mode_schema
from sandbox.record.report import report_schema

HELP = "print the JSON Schema of a file the sandbox writes (the call's report, the bench's figures)"

#: What ``sandbox schema`` can print, by name: each bench mode run on its own as bench-MODE.
SCHEMAS: dict[str, Callable[[], dict[str, Any]]] = {
    "report": report_schema,
    "bench": bench_schema,
    **{f"bench-{mode.flag}": functools.partial(mode_schema, mode) for mode in MODES},
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sandbox schema``."""
    modes = ", ".join(f"bench-{mode.flag}" for mode in MODES)
    parser.add_argument(
        "what",
        choices=sorted(SCHEMAS),
        help="report: the report `sandbox call --report` and `sandbox sessions export --json` "
        f"write; bench: the figures `sandbox bench --json` prints; {modes}: the figures each "
        "mode prints run on its own (`sandbox bench --soak 10 --json`)",
    )


def run(args: argparse.Namespace) -> int:
    """Print the schema (JSON Schema 2020-12) to stdout."""
    print(json.dumps(SCHEMAS[args.what](), indent=2, ensure_ascii=False))
    return 0
