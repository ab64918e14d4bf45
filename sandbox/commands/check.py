"""``sandbox check URL``: hold a running brain to the wire contract, one call per scenario."""

from __future__ import annotations

import argparse
import asyncio
import textwrap

from sandbox.check import ScenarioResult, Status, check_brain
from sandbox.commands.options import BRAIN_HELP, RELAY_HELP
from sandbox.harness.builtin import brain_choice, brain_spec, brain_url_for
from sandbox.host.launch import CallOptions, check_relay_url
from sandbox.option_values import checked
from sandbox.record.plain_text import json_text, visible

HELP = "run the conformance suite against a running brain and print what it breaks"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sandbox check``."""
    parser.add_argument(
        "url",
        type=checked(brain_spec),
        metavar="URL|NAME",
        help=f"{BRAIN_HELP}, e.g. ws://127.0.0.1:8765/brain",
    )
    parser.add_argument("--relay", action="store_true", help=RELAY_HELP)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")


def run(args: argparse.Namespace) -> int:
    """Run the suite; exit 0 only if no scenario failed and at least one was exercised."""
    url, builtin = brain_choice(args.url, "URL")
    if args.relay and url:
        check_relay_url(url)
    results = asyncio.run(_check(CallOptions(brain_url=url, builtin=builtin, relay=args.relay)))
    ok = passed(results)
    if args.json:
        doc = {"brain_url": args.url, "passed": ok, "scenarios": [r.as_json() for r in results]}
        print(json_text(doc, indent=2))
    else:
        print(summary(args.url, results))
    return 0 if ok else 1


async def _check(brain: CallOptions) -> list[ScenarioResult]:
    async with brain_url_for(brain) as url:
        return await check_brain(url, relay=brain.relay)


def passed(results: list[ScenarioResult]) -> bool:
    """No scenario failed, and something was exercised (a brain that never answers is not
    conformant just because every scenario was out of its reach)."""
    statuses = [r.status for r in results]
    return Status.FAIL not in statuses and Status.PASS in statuses


def summary(url: str, results: list[ScenarioResult]) -> str:
    """The results as words: a line per scenario, each finding with the rule it breaks."""
    width = max(len(r.name) for r in results)
    lines = [f"sandbox check {visible(url)}: {len(results)} scenarios, one call each", ""]
    for result in results:
        status = result.status.value
        lines.append(f"{status:<13}  {result.name:<{width}}  {result.title}")
        for finding in result.findings:
            when = f" (at {finding.t_ms / 1000:.2f} s)" if finding.t_ms is not None else ""
            lines.append(f"    x {visible(finding.detail)}{when}")
            lines.append(f"      breaks {finding.rule.cite()}:")
            quote = textwrap.wrap(f'"{finding.rule.words}"', 88)
            lines += [f"        {line}" for line in quote]
        if result.not_exercised:
            lines.append(f"    - not exercised: {visible(result.not_exercised)}")
        lines += [f"    . {visible(note)}" for note in result.notes]
    counts = {s: sum(r.status is s for r in results) for s in Status}
    verdict = "PASS" if passed(results) else "FAIL"
    lines += [
        "",
        f"{counts[Status.PASS]} passed, {counts[Status.FAIL]} failed, "
        f"{counts[Status.NOT_EXERCISED]} not exercised: {verdict}",
    ]
    if verdict == "FAIL" and not counts[Status.FAIL]:
        lines.append("nothing could be exercised: the brain never answered the caller")
    return "\n".join(lines)
