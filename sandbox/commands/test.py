"""``sandbox test``: run caller scripts (``test_*.toml``) as tests against a brain."""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from sandbox.commands.options import BRAIN_HELP
from sandbox.commands.written import clear_the_way
from sandbox.harness.builtin import brain_spec
from sandbox.option_values import checked, path
from sandbox.testing.reports import shown_path, write_reports
from sandbox.testing.script_tests import PASSED, ScriptResult, find_scripts, run_scripts

HELP = "run caller scripts (test_*.toml) with expectations against a brain, as tests"
_MARKS = {"passed": "PASS", "failed": "FAIL", "broken": "BROKEN"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sandbox test``."""
    parser.add_argument(
        "paths",
        nargs="*",
        type=path,
        default=[Path()],
        metavar="PATH",
        help="scripts, or folders searched for test_*.toml (default: the current folder)",
    )
    parser.add_argument(
        "--brain",
        type=checked(brain_spec),
        metavar="URL|NAME",
        help=f"{BRAIN_HELP} (default: builtin)",
    )
    parser.add_argument(
        "--audio",
        choices=("sim", "real"),
        default="sim",
        help="sim: text turns, simulated playout, three scripts at once (default); real: "
        "each line spoken into the microphone path, one script at a time",
    )
    parser.add_argument("--junit", type=path, metavar="FILE", help="write JUnit XML for CI")
    parser.add_argument("--json", type=path, metavar="FILE", help="write the results as JSON")


def run(args: argparse.Namespace) -> int:
    """Run every script; exit 0 all passed, 1 an expectation failed, 2 the brain could not
    be reached or broke a rule of the wire, or a path named holds no script (a usage
    error)."""
    scripts = find_scripts(args.paths)
    # A CI writes its files afresh each run: overwritten, but a folder named is refused now.
    clear_the_way([p for p in (args.junit, args.json) if p is not None], force=True)
    root = Path.cwd()
    started = time.monotonic()
    # Each script is printed as it finishes; the files keep the order they were found in.
    run_ = asyncio.run(
        run_scripts(scripts, args.brain or "builtin", args.audio, lambda r: _print(r, root))
    )
    write_reports(run_, root, args.junit, args.json)
    counts = {status: sum(r.status == status for r in run_.results) for status in _MARKS}
    print(
        f"{counts['passed']} passed, {counts['failed']} failed, {counts['broken']} broken "
        f"in {time.monotonic() - started:.1f} s"
    )
    return run_.exit_status


def _print(result: ScriptResult, root: Path) -> None:
    """One line for the script, then each reason it did not pass."""
    print(
        f"{_MARKS[result.status]:<6} {shown_path(result.path, root)}  {result.seconds:.1f} s",
        flush=True,
    )
    if result.status == PASSED:
        return
    for problem in result.problems:
        print(f"  {problem}")
    if result.session_id is not None:
        print(f"  session {result.session_id}", flush=True)
