"""The bench's load figures: 2,000 calls at once at a caller's pace against the built-in brain.

One ``sandbox load`` run in a process of its own (so its memory growth is the run's alone),
the concierge served in another by the run itself: every call plays the default caller
(:data:`~sandbox.load.one_call.DEFAULT_SCRIPT`) on the wall clock (``--realtime``), the
calls started over :data:`RAMP_S`, shorter than one call, so that all of them are on at
once as the last one starts. What it came to: calls with any error, the first chunk's
99th percentile, how late the load generator's own loop ran, memory and CPU per call.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from sandbox.errors import UserError
from sandbox.load.one_call import DEFAULT_SCRIPT
from sandbox_bench.figures import Progress, fmt_ms

#: Calls at once: all of them (a full run; --quick).
CALLS, QUICK_CALLS = 2000, 100
#: The seconds over which they start: the default caller's call lasts ~20 s at its pace.
RAMP_S, QUICK_RAMP_S = 15.0, 2.0


def measure_load(progress: Progress, *, quick: bool = False) -> dict[str, Any]:
    """Run the calls and return the ``load_*`` keys of the bench's result."""
    calls, ramp = (QUICK_CALLS, QUICK_RAMP_S) if quick else (CALLS, RAMP_S)
    progress(f"  {calls} calls at a caller's pace, started over {ramp:g} s")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "load.json"
        command = ["load", "--brain", "concierge", "--script", str(DEFAULT_SCRIPT)]
        command += ["--calls", str(calls), "--concurrency", str(calls), "--realtime"]
        command += ["--ramp", f"{ramp:g}", "--keep", "none", "--json", str(out)]
        done = subprocess.run(
            [sys.executable, "-m", "sandbox.cli", *command],
            capture_output=True,
            text=True,
            check=False,
        )
        if not out.exists():
            raise UserError(f"the bench's load run wrote no figures: {done.stderr.strip()}")
        doc: dict[str, Any] = json.loads(out.read_text())
    first_chunk, late, cost = doc["first_chunk_ms"], doc["loop_late_ms"], doc["runtime"]
    figures = {
        "load_calls": doc["calls"],
        "load_peak_concurrency": doc["peak_concurrency"],
        "load_errors": doc["failed"],
        # What the failed calls came to: errors by class or code, and wire-rule findings.
        "load_errors_by_code": doc["errors"],
        "load_with_findings": doc["with_findings"],
        "load_unjudged_findings": doc["unjudged_findings"],
        "load_first_chunk_p50_ms": first_chunk["p50"],
        "load_first_chunk_p99_ms": first_chunk["p99"],
        "load_loop_late_p99_ms": late["p99"],
        "load_rss_kib_per_call": cost["rss_kib_per_call"],
        "load_cpu_ms_per_call": cost["cpu_ms_per_call"],
        "load_wall_s": doc["wall_s"],
    }
    progress(
        f"  {doc['completed']} of {doc['calls']} completed, {doc['peak_concurrency']} at once; "
        f"first chunk p99 {fmt_ms(first_chunk['p99'])}; {cost['rss_kib_per_call']} KiB a call"
    )
    return figures
