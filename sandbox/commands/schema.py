"""``sandbox schema``: the JSON Schema of what the sandbox writes, for scripts that read it."""

from __future__ import annotations

import argparse
import json

from sandbox.bench.result_schema import bench_schema
from sandbox.record.report import report_schema

HELP = "print the JSON Schema of a file the sandbox writes (the call's report, the bench's figures)"

#: What ``sandbox schema`` can print, by name.
SCHEMAS = {"report": report_schema, "bench": bench_schema}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sandbox schema``."""
    parser.add_argument(
        "what",
        choices=sorted(SCHEMAS),
        help="report: the report `sandbox call --report` and `sandbox sessions export --json` "
        "write; bench: the figures `sandbox bench --json` prints",
    )


def run(args: argparse.Namespace) -> int:
    """Print the schema (JSON Schema 2020-12) to stdout."""
    print(json.dumps(SCHEMAS[args.what](), indent=2, ensure_ascii=False))
    return 0
