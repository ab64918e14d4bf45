"""``sandbox load``: many simulated calls at once against a brain, and what they came to."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace

import uvloop

from sandbox.caller.script import load_script
from sandbox.commands.options import BRAIN_HELP, RELAY_HELP
from sandbox.commands.written import FORCE_HELP, clear_the_way, write_text
from sandbox.errors import UserError
from sandbox.harness.builtin import brain_choice, brain_spec
from sandbox.host.launch import CallOptions, check_relay_url
from sandbox.load.cost import RuntimeCost
from sandbox.load.echo_process import brain_process
from sandbox.load.limits import MAX_CALLS, MAX_CONCURRENCY, MAX_RAMP_S, open_files_for
from sandbox.load.one_call import Target
from sandbox.load.run import KEEP_CHOICES, LoadPlan, LoadRun, run_load
from sandbox.load.scale import SCALE_COUNTS, scale_table
from sandbox.load.table import progress_line, summary_lines
from sandbox.option_values import checked, number, path, whole
from sandbox.record.plain_text import json_text
from sandbox.wire.relay import RELAY_PATH

HELP = "load-test a brain: many simulated calls from a caller script, C at a time"
#: Up to this many calls every session is kept by default; above it, the failed ones.
KEEP_ALL_UP_TO = 50
#: How often the progress line is redrawn on a terminal (and written elsewhere).
_TTY_EVERY_S = 0.25
_LOG_EVERY_S = 5.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sandbox load``."""
    parser.add_argument("--brain", type=checked(brain_spec), metavar="URL|NAME", help=BRAIN_HELP)
    parser.add_argument(
        "--script", type=path, metavar="FILE.toml", help="caller script (TOML) every call plays"
    )
    parser.add_argument(
        "--calls",
        type=whole(1, MAX_CALLS),
        default=20,
        metavar="N",
        help="calls to place (default 20)",
    )
    parser.add_argument(
        "--concurrency",
        type=whole(1, MAX_CONCURRENCY),
        metavar="C",
        help="calls at once (default: all of them, up to 200)",
    )
    parser.add_argument(
        "--ramp",
        type=number(0, MAX_RAMP_S, "seconds"),
        default=0.0,
        metavar="S",
        help="reach full concurrency over S s",
    )
    parser.add_argument("--relay", action="store_true", help=RELAY_HELP)
    parser.add_argument(
        "--realtime",
        action="store_true",
        help="play each call on the wall clock (default: each on its own clock that skips "
        "the waits for words and silences, so calls run back to back)",
    )
    parser.add_argument("--json", type=path, metavar="FILE", help="write the run as JSON")
    parser.add_argument("--force", action="store_true", help=f"--json: {FORCE_HELP}")
    parser.add_argument(
        "--keep",
        choices=KEEP_CHOICES,
        help=f"which calls stay saved as sessions (default: all up to {KEEP_ALL_UP_TO} "
        "calls, failed above)",
    )
    parser.add_argument(
        "--max-failures",
        type=whole(1, MAX_CALLS),
        metavar="N",
        help="stop placing calls once N have failed",
    )
    parser.add_argument(
        "--scale",
        action="store_true",
        help="measure the runtime's own cost at "
        + ", ".join(map(str, SCALE_COUNTS))
        + " calls at once against the echo brain (its own process)",
    )


def run(args: argparse.Namespace) -> int:
    """Run the calls, showing progress, then the table; exit 0 clean, 1 errors, 2 rules."""
    if args.scale:
        for line in scale_table(args.script):
            print(line, flush=True)
        return 0
    if not args.brain or not args.script:
        raise UserError(
            "name the brain and the caller: sandbox load --brain ws://127.0.0.1:8765/brain "
            "--script call.toml (or --brain echo: a built-in brain served for the run)"
        )
    plan = _plan(args)
    open_files_for(plan.concurrency)
    if args.json:  # refused now, not after the whole run
        clear_the_way([args.json], force=args.force)
    url, builtin = brain_choice(args.brain)
    if args.relay and url:
        check_relay_url(url)
    brain = CallOptions(brain_url=url, builtin=builtin, relay=args.relay)
    target = Target(
        url or "", load_script(args.script), record=plan.keep != "none", realtime=args.realtime
    )
    cost = RuntimeCost.start()
    load = LoadRun(plan)
    # uvloop: thousands of calls' frames and timers on one loop cost a quarter less CPU
    # than on asyncio's own loop (the load generator's overload is what its figures measure).
    uvloop.run(_run(plan, target, brain, load))
    named = url or f"the built-in {builtin} brain"
    print(f"sandbox load: {plan.calls} calls to {named}, {plan.concurrency} at a time")
    for line in summary_lines(load):
        print(line)
    if args.json:
        doc = {
            "brain_url": args.brain,
            "relay": args.relay,
            "realtime": args.realtime,
            "peak_concurrency": load.peak_in_flight,
            "loop_late_ms": load.lag.figures_ms(),
            "runtime": cost.as_json(load.tally.done),
            **load.tally.as_json(load.wall_s),
        }
        write_text(args.json, json_text(doc, indent=2))
        print(f"  JSON: {args.json}")
    if load.tally.flagged:
        return 2
    return 1 if load.tally.failed else 0


def _plan(args: argparse.Namespace) -> LoadPlan:
    """The run asked for (every number was held to its range where it was parsed)."""
    concurrency = min(args.calls, 200) if args.concurrency is None else args.concurrency
    keep = args.keep or ("all" if args.calls <= KEEP_ALL_UP_TO else "failed")
    return LoadPlan(args.calls, min(concurrency, args.calls), args.ramp, args.max_failures, keep)


async def _run(plan: LoadPlan, target: Target, brain: CallOptions, load: LoadRun) -> None:
    """The run, against the brain named (a built-in one served for it in its own process)."""
    with _served(brain) as url:
        async with _progress(load):
            await run_load(plan, replace(target, brain_url=url), relay=brain.relay, run=load)


@contextlib.contextmanager
def _served(brain: CallOptions) -> Iterator[str]:
    """The URL to dial: the user's, or a built-in brain's served in a process of its own
    (served in this one, it shares the calls' event loop: each slows the other, and the
    brain's share of the work reads as the brain's slowness)."""
    if brain.brain_url:
        yield brain.brain_url
        return
    with brain_process(brain.builtin, RELAY_PATH if brain.relay else "/brain") as url:
        yield url


@contextlib.asynccontextmanager
async def _progress(load: LoadRun) -> AsyncIterator[None]:
    """The live line: redrawn in place on a terminal, a line every few seconds elsewhere."""
    tty = sys.stderr.isatty()

    async def draw() -> None:
        while True:
            await asyncio.sleep(_TTY_EVERY_S if tty else _LOG_EVERY_S)
            end = "\r" if tty else "\n"
            line = f"\x1b[2K{progress_line(load)}" if tty else progress_line(load)
            print(line, end=end, file=sys.stderr, flush=True)

    drawing = asyncio.create_task(draw())
    try:
        yield
    finally:
        drawing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await drawing
        print(("\x1b[2K" if tty else "") + progress_line(load), file=sys.stderr, flush=True)
