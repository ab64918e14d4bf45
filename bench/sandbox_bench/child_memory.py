"""A measured process's peak resident memory, read from outside it while it runs.

The device stage runs the app (``sandbox run``) and Pipecat as processes of their own. The
kernel keeps each process's high-water mark of resident memory (``VmHWM`` in
``/proc/PID/status``, :func:`sandbox.load.cost.high_water_kib`), so sampling it misses no
peak between samples; only growth in the last sample's interval before the process exits
goes unseen.
"""

from __future__ import annotations

import asyncio
import subprocess
import threading

from sandbox.load.cost import high_water_kib

#: How often the high-water mark is read.
EVERY_S = 0.2


class PeakWatch:
    """Reads a running process's high-water mark every :data:`EVERY_S` until it exits."""

    def __init__(self, pid: int, every_s: float = EVERY_S) -> None:
        self._pid = pid
        self._every_s = every_s
        self._peak_kib = 0
        self._done = threading.Event()
        threading.Thread(target=self._watch, name=f"peak-{pid}", daemon=True).start()

    def _watch(self) -> None:
        while (kib := high_water_kib(self._pid)) is not None:
            self._peak_kib = max(self._peak_kib, kib)
            if self._done.wait(self._every_s):
                return

    @property
    def peak_mb(self) -> float | None:
        """The highest mark read, in MB (10^6 bytes); None if none was."""
        return round(self._peak_kib * 1024 / 1e6, 1) if self._peak_kib else None

    def stop(self) -> None:
        """Read no more."""
        self._done.set()


async def reap(
    process: subprocess.Popen[bytes], timeout_s: float, watch: PeakWatch
) -> float | None:
    """Wait for ``process`` to exit (killed after ``timeout_s``), reading its high-water mark
    until it does; return its peak resident memory in MB."""
    try:
        await asyncio.to_thread(process.wait, timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        await asyncio.to_thread(process.wait)
    watch.stop()
    return watch.peak_mb
