"""A measured process's peak memory, read from outside it while it runs."""

from __future__ import annotations

import os
import subprocess
import sys

from sandbox.load.cost import high_water_kib
from sandbox_bench.child_memory import PeakWatch, reap

#: A child that holds ~200 MB resident for a second, frees it, then exits with 3.
_HOG = (
    "import time; b = bytearray(200_000_000); b[::4096] = b'x' * len(b[::4096]); "
    "time.sleep(1); del b; time.sleep(0.5); raise SystemExit(3)"
)


async def test_the_peak_is_the_childs_own_high_water_mark_not_the_benchs() -> None:
    ballast = bytearray(300_000_000)  # this process is the larger: the child's figure is its own
    ballast[::4096] = b"x" * len(ballast[::4096])
    child = subprocess.Popen([sys.executable, "-c", _HOG])
    peak = await reap(child, 30.0, PeakWatch(child.pid, every_s=0.05))
    assert peak is not None and 200 <= peak < 300  # kept after the memory was freed
    assert child.returncode == 3
    assert (high_water_kib(os.getpid()) or 0) > 300_000
    del ballast


async def test_a_child_that_will_not_exit_is_killed_and_still_measured() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    peak = await reap(child, 0.5, PeakWatch(child.pid, every_s=0.05))
    assert child.returncode == -9
    assert peak is not None and 0 < peak < 100
    assert high_water_kib(child.pid) is None  # gone: nothing more to read
