"""``sandbox test``: run caller scripts (``test_*.toml``) as tests against a brain."""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from rich.table import Table

from sandbox.commands.options import BRAIN_HELP
from sandbox.commands.written import clear_the_way
from sandbox.harness.builtin import brain_spec
from sandbox.option_values import checked, path, whole
from sandbox.record.table_text import table_lines
from sandbox.testing.reports import shown_path, write_reports
from sandbox.testing.script_results import (
    BROKEN,
    FAILED,
    FLAKY,
    PASSED,
    REPLY_PERCENTILES,
    Run,
    ScriptResult,
)
from sandbox.testing.script_tests import find_scripts, run_scripts

HELP = "run caller scripts (test_*.toml) with expectations against a brain, as tests"
_MARKS = {PASSED: "PASS", FLAKY: "FLAKY", FAILED: "FAIL", BROKEN: "BROKEN"}
#: The most runs of a script one command makes: each is a call.
MAX_REPEAT = 1000


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
    parser.add_argument(
        "--repeat",
        type=whole(1, MAX_REPEAT),
        default=1,
        metavar="N",
        help="run each script N times and report its pass rate and reply times; a script "
        "that passes some runs and not others is flaky, not passed (default: 1)",
    )
    parser.add_argument("--junit", type=path, metavar="FILE", help="write JUnit XML for CI")
    parser.add_argument("--json", type=path, metavar="FILE", help="write the results as JSON")


def run(args: argparse.Namespace) -> int:
    """Run every script; exit 0 all passed, 1 an expectation failed (in any run: a flaky
    script is not passed), 2 the brain could not be reached or broke a rule of the wire,
    or a path named holds no script (a usage error)."""
    scripts = find_scripts(args.paths)
    # A CI writes its files afresh each run: overwritten, but a folder named is refused now.
    clear_the_way([p for p in (args.junit, args.json) if p is not None], force=True)
    root = Path.cwd()
    started = time.monotonic()
    # Each run is printed as it finishes; the files keep the order scripts were found in.
    run_ = asyncio.run(
        run_scripts(
            scripts, args.brain or "builtin", args.audio, lambda r: _print(r, root), args.repeat
        )
    )
    write_reports(run_, root, args.junit, args.json)
    if run_.repeat > 1:
        for line in _table(run_, root):
            print(line)
    counts = {status: sum(s.status == status for s in run_.scripts) for status in _MARKS}
    flaky = f"{counts[FLAKY]} flaky, " if run_.repeat > 1 else ""
    print(
        f"{counts[PASSED]} passed, {flaky}{counts[FAILED]} failed, {counts[BROKEN]} broken "
        f"in {time.monotonic() - started:.1f} s"
    )
    return run_.exit_status


def _print(result: ScriptResult, root: Path) -> None:
    """One line for the run, then each reason it did not pass."""
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


def _table(run: Run, root: Path) -> list[str]:
    """Each script's status, pass rate and reply-time percentiles over its runs' turns."""
    table = Table(box=None, pad_edge=False, show_edge=False)
    table.add_column("status")
    table.add_column("script")
    table.add_column("passed", justify="right")
    for name, _ in REPLY_PERCENTILES:
        table.add_column(f"reply {name}", justify="right")
    for script in run.scripts:
        times = ["-" if ms is None else f"{ms} ms" for ms in script.reply_percentiles().values()]
        rate = f"{script.passed}/{len(script.runs)} ({script.pass_rate:.0%})"
        table.add_row(_MARKS[script.status], shown_path(script.path, root), rate, *times)
    return table_lines(table)
