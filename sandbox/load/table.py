"""The words a load run shows: the live progress line and the table at the end."""

from __future__ import annotations

from rich.table import Table

from sandbox.load.call_result import OVERLOADED
from sandbox.load.loop_lag import OVERLOADED_S
from sandbox.load.run import LoadRun
from sandbox.load.tally import percentile
from sandbox.record.table_text import table_lines

#: Flagged calls named in the table; --json has them all.
_LISTED = 10


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:.0f} ms" if value >= 10 else f"{value:.1f} ms"


def progress_line(run: LoadRun) -> str:
    """Calls done and failed, concurrency now, first-chunk percentiles so far."""
    tally, plan = run.tally, run.plan
    fc = run.live_first_chunk_ms
    return (
        f"{tally.done}/{plan.calls} calls · {tally.failed} failed · {run.in_flight} at once · "
        f"first chunk p50 {_ms(percentile(fc, 50))} p95 {_ms(percentile(fc, 95))} "
        f"p99 {_ms(percentile(fc, 99))} · {run.wall_s:.1f} s"
    )


def summary_lines(run: LoadRun) -> list[str]:
    """The table at the end of a run."""
    tally = run.tally
    wall = run.wall_s
    rows: list[tuple[str, str]] = [
        ("calls placed", f"{tally.done} of {run.plan.calls}"),
        ("calls completed", str(tally.completed)),
        ("most calls at once", str(run.peak_in_flight)),
        ("calls with wire-rule findings", str(len(tally.flagged))),
    ]
    for name, values in (("first chunk", tally.first_chunk_ms), ("Finalize", tally.finalize_ms)):
        rows.append(
            (
                f"{name} latency p50 / p95 / p99",
                " / ".join(_ms(percentile(values, p)) for p in (50, 95, 99)),
            )
        )
    per_s = tally.done / wall if wall > 0 else 0.0
    turns_per_s = len(tally.first_chunk_ms) / wall if wall > 0 else 0.0
    rows.append(("brain throughput", f"{per_s:.1f} calls/s, {turns_per_s:.1f} answers/s"))
    late = run.lag.figures_ms()
    # This process's own event loop: late by more than a few ms, it was the bottleneck.
    rows.append(("running late p50 / p99 / worst", " / ".join(map(_ms, late.values()))))
    rows.append(("wall time", f"{wall:.1f} s"))
    table = Table(box=None, show_header=False, pad_edge=False)
    for row in rows:
        table.add_row(*row)
    lines = [f"  {line}" for line in table_lines(table)]
    flagged = tally.flagged
    if flagged:
        lines.append("  calls flagged (call number: session):")
        lines += [f"    {c.index + 1:>4}: {c.session_id}" for c in flagged[:_LISTED]]
        if len(flagged) > _LISTED:
            lines.append(f"    … and {len(flagged) - _LISTED} more (--json lists every call)")
    if tally.rules:
        lines.append("  rules broken (calls):")
        lines += [f"    {count:>4}  {rule}" for rule, count in tally.rules.most_common()]
    if tally.errors:
        lines.append("  errors by code (calls):")
        lines += [f"    {count:>4}  {code}" for code, count in tally.errors.most_common()]
    if run.stopped_early:
        lines.append(f"  stopped early: {run.tally.failed} calls failed (--max-failures)")
    return lines + overload_lines(run)


def overload_lines(run: LoadRun) -> list[str]:
    """The load generator's own overload, when there was one, said as its own (the
    latencies include its waits; the calls it could not dial are not the brain's)."""
    worst = max(run.lag.late_s, default=0.0)
    if worst < OVERLOADED_S:
        return []
    undialed = run.tally.errors.get(OVERLOADED, 0)
    lines = [
        f"  this load generator was overloaded on this machine: its event loop ran up to "
        f"{worst:.1f} s late, so the latencies above include its own waits, not only the "
        "brain's"
    ]
    if undialed:
        lines.append(
            f"  {undialed} call{'s' if undialed != 1 else ''} could not be dialed in time for "
            "that (errors: overloaded), not for anything the brain did"
        )
    if run.tally.unjudged:
        lines.append(
            f"  {run.tally.unjudged} finding{'s' if run.tally.unjudged != 1 else ''} of speech "
            "for a dead turn not judged: this process read the brain's chunks later than the "
            "rule's grace, so whether the brain knew the turn was dead cannot be told"
        )
    lines.append(
        f"  to measure the brain, spread the calls out: --ramp {_ramp_hint(run)} (or fewer "
        "with --concurrency)"
    )
    return lines


def _ramp_hint(run: LoadRun) -> str:
    """A ramp that asks the loop for no more than it kept up with: the calls at once over
    the seconds the run took, whichever is longer than what was asked."""
    return f"{max(run.plan.ramp_s * 2, run.wall_s, 10.0):.0f}"
