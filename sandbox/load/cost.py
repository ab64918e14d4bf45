"""What a run cost this process: CPU time (every thread: the calls and their recorders)
and how far its peak memory grew. The brain is another process, so none of it is the
brain's."""

from __future__ import annotations

import resource
import time
from dataclasses import dataclass


def _peak_rss_kib() -> int:
    # ru_maxrss is in KiB on Linux (bytes on macOS, where this reads 1024 times high).
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


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
