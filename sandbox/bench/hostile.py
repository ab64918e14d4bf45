"""Figures for the misbehaving brains: ``python -m sandbox.bench.hostile``.

The flood (one unit of N small chunks from a brain in a process of its own, sent as fast
as it can, then at 10,000 a second) timed per chunk at 2,000, 4,000, 8,000 and 20,000
chunks, from the unit's first frame to its SpeechEnd handled; and the call's peak memory
(this process's RSS high-water mark) around one 10 MB chunk.
"""

from __future__ import annotations

import asyncio
import resource
import subprocess
import sys
import time

from sandbox.call.sim_playout import SimPlayout
from sandbox.call.units import Bracket
from sandbox.host.launch import CallOptions, open_call
from sandbox.host.session import CallHost

FLOOD_SIZES = (2_000, 4_000, 8_000, 20_000)


def _bracket(host: CallHost, speech_id: int) -> Bracket | None:
    unit = host.core.unit(speech_id)
    return None if unit is None else unit.bracket


async def _one_call(
    behaviour: str, chunks: int = 20_000, per_second: int = 0
) -> tuple[float, CallHost]:
    """Seconds from the reply's first frame to its last handled, and the finished call."""
    command = [sys.executable, "-m", "sandbox.brains.hostile", behaviour, "--port", "0"]
    proc = subprocess.Popen(
        [*command, "--chunks", str(chunks), "--per-second", str(per_second)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().rsplit(" ", 1)[-1].strip()
        host = await open_call(CallOptions(brain_url=url), url, SimPlayout(ms_per_word=10))
        running = asyncio.create_task(host.run())
        await host.wait_for(lambda: _bracket(host, 1) is Bracket.ENDED, 10)
        host.caller_turn("Hello there.")
        await host.wait_for(lambda: _bracket(host, 2) is not None, 10)
        start = time.monotonic()
        await host.wait_for(lambda: _bracket(host, 2) is not Bracket.OPEN, 600)
        took = time.monotonic() - start
        host.hang_up()
        await running
        return took, host
    finally:
        proc.terminate()
        proc.wait(10)


def main() -> int:
    """Print the figures, one line each (the 10 MB chunk first, so the peak is its own)."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    _took, host = asyncio.run(_one_call("huge_chunk"))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    errors = [e.message for e in host.core.errors]
    print(f"10 MB chunk: peak RSS {peak:.0f} MB (before the call {before:.0f} MB); {errors[0]}")
    for per_second in (0, 10_000):
        rate = "flat out" if not per_second else f"{per_second:,} a second"
        for chunks in FLOOD_SIZES:
            took, _host = asyncio.run(_one_call("flood", chunks, per_second))
            each = took / chunks * 1e6
            print(f"flood of {chunks:>6,} chunks, {rate}: {took:5.2f} s, {each:4.0f} µs a chunk")
    return 0


if __name__ == "__main__":
    sys.exit(main())
