"""``sandbox load --scale``: how the runtime's own cost grows with the calls at once.

The echo brain runs in a process of its own (``sandbox brain echo``), so what is measured
is the runtime's side alone. Each row is a fresh ``sandbox load`` process placing N calls,
all N at once, recorded as a default run records them: its CPU time and peak memory growth
per call, and its median first-chunk latency beside the single call's. Twice: at a
caller's pace (``--realtime``), where N calls at once are N callers, and back to back on
the calls' own clocks, where they are as many calls as the machine can push.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sandbox.errors import UserError
from sandbox.load.echo_process import echo_brain
from sandbox.load.one_call import DEFAULT_SCRIPT

#: The calls at once of each row.
SCALE_COUNTS = (1, 10, 50, 100, 200)
#: At a caller's pace, call k starts k times this after the first, so the calls' turns do not
#: all fall on the same instant (200 calls: over 5 s, well inside one call's length).
RAMP_S_PER_CALL = 0.025


def _sandbox(*args: str) -> list[str]:
    return [sys.executable, "-m", "sandbox.cli", *args]


def _row(url: str, script: Path, calls: int, realtime: bool, folder: Path) -> dict[str, Any]:
    out = folder / f"load-{calls}.json"
    pace = ["--realtime", "--ramp", f"{calls * RAMP_S_PER_CALL:g}"] if realtime else []
    done = subprocess.run(
        _sandbox(
            "load",
            "--brain",
            url,
            "--script",
            str(script),
            "--calls",
            str(calls),
            "--concurrency",
            str(calls),
            "--keep",
            "failed",
            "--json",
            str(out),
            *pace,
        ),
        capture_output=True,
        text=True,
        check=False,
    )
    if not out.exists():
        raise UserError(f"sandbox load --calls {calls} wrote no figures: {done.stderr.strip()}")
    doc: dict[str, Any] = json.loads(out.read_text())
    out.unlink()
    return doc


def scale_table(script: Path | None) -> Iterator[str]:
    """Run each row, at a caller's pace then back to back, and yield the tables' lines."""
    script = script or DEFAULT_SCRIPT
    yield f"sandbox load --scale: {script.name} against the echo brain in its own process"
    with echo_brain() as url, tempfile.TemporaryDirectory() as folder:
        for realtime in (True, False):
            yield ""
            yield (
                f"--realtime, calls started over {RAMP_S_PER_CALL * 1000:.0f} ms each (--ramp):"
                if realtime
                else "each call on its own clock, back to back (the default):"
            )
            yield (
                "| calls | most at once | completed | first chunk p50 | vs 1 call | p95 "
                "| CPU per call | memory per call | wall |"
            )
            yield "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
            single: float | None = None
            for calls in SCALE_COUNTS:
                doc = _row(url, script, calls, realtime, Path(folder))
                p50, p95 = doc["first_chunk_ms"]["p50"], doc["first_chunk_ms"]["p95"]
                single = p50 if single is None else single
                added = p50 - single if p50 is not None and single is not None else None
                cost = doc["runtime"]
                yield (
                    f"| {calls} | {doc['peak_concurrency']} | {doc['completed']} "
                    f"| {_ms(p50)} | {_ms(added, sign=True)} | {_ms(p95)} "
                    f"| {cost['cpu_ms_per_call']:.1f} ms | {cost['rss_kib_per_call']:.0f} KiB "
                    f"| {doc['wall_s']:.1f} s |"
                )


def _ms(value: float | None, *, sign: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:+.1f} ms" if sign else f"{value:.1f} ms"
