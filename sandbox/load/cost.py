"""What a run cost this process: CPU time (every thread: the calls and their recorders)
and how far its peak memory grew. The brain is another process, so none of it is the
brain's.

Peak memory is the kernel's high-water mark, ``VmHWM`` in ``/proc/PID/status``:
``getrusage``'s ``ru_maxrss`` is no substitute in a process started by another, as Linux
folds the forking parent's own high-water mark into it at ``exec`` (a run started by the
bench, 800 MB, read as large as the bench, and its own growth as nothing)."""

from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass
from pathlib import Path


def high_water_kib(pid: int) -> int | None:
    """``VmHWM`` of process ``pid`` in KiB; None once it has exited (or never was, or where
    there is no ``/proc``)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    line = next((ln for ln in status.splitlines() if ln.startswith("VmHWM:")), None)
    return None if line is None else int(line.split()[1])


def _peak_rss_kib() -> int:
    # The kernel's own mark where there is one: ru_maxrss keeps a forking parent's peak (the
    # bench's load stage read 0 KiB a call). Else ru_maxrss, in KiB on Linux (bytes on
    # macOS, where this reads 1024 times high).
    kib = high_water_kib(os.getpid())
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss if kib is None else kib


@dataclass
class RuntimeCost:
    """Started before the calls; :meth:`as_json` reads what they have cost so far."""

    cpu_start: float = 0.0
    peak_start_kib: int = 0

    @classmethod
    def start(cls) -> RuntimeCost:
        """Take the readings the run is measured from."""
        return cls(time.process_time(), _peak_rss_kib())

    def as_json(self, calls: int) -> dict[str, float]:
        """CPU seconds and peak memory growth (MiB), in all and per call."""
        cpu = time.process_time() - self.cpu_start
        grown = (_peak_rss_kib() - self.peak_start_kib) / 1024
        per = max(1, calls)
        return {
            "cpu_s": round(cpu, 3),
            "cpu_ms_per_call": round(cpu * 1000 / per, 2),
            "peak_rss_growth_mib": round(grown, 2),
            "rss_kib_per_call": round(grown * 1024 / per, 1),
        }
