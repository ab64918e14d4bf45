"""``sandbox schema``: the JSON Schema of what the sandbox writes, for scripts that read it."""

from __future__ import annotations

import argparse
import json

from sandbox.record.report import report_schema

HELP = "print the JSON Schema of a file the sandbox writes (the call's report)"

#: What ``sandbox schema`` can print, by name.
SCHEMAS = {"report": report_schema}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sandbox schema``."""
    parser.add_argument(
        "what",
        choices=sorted(SCHEMAS),
        help="report: the report `sandbox call --report` and `sandbox sessions export --json` "
        "write",
    )


def run(args: argparse.Namespace) -> int:
    """Print the schema (JSON Schema 2020-12) to stdout."""
    print(json.dumps(SCHEMAS[args.what](), indent=2, ensure_ascii=False))
    return 0
