"""glibc (this machine's C library) takes the arena cap and the fixed thresholds, a large
buffer goes back to the system as it is freed, and other freed memory when asked."""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.malloc_tuning import give_back_free_memory, tune_malloc

glibc = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc")


@glibc
def test_glibc_takes_the_cap_and_the_thresholds() -> None:
    assert tune_malloc() is True


def resident_kb() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4


@glibc
def test_freed_memory_is_given_back() -> None:
    # Many small blocks (below the mmap threshold, so on the heap), the last one kept:
    # freeing the rest leaves their pages resident behind it until they are given back.
    blocks = [bytearray(4000) for _ in range(20_000)]
    kept = blocks[-1]
    del blocks
    before = resident_kb()
    assert give_back_free_memory() is True
    assert before - resident_kb() > 40_000  # of the ~80 MB freed
    assert len(kept) == 4000


#: Run in a process of its own: a heap that already holds a large free chunk (another test's)
#: would serve the buffers from it, mapped or not.
_LARGE_BUFFERS = """
import numpy as np
from sandbox.malloc_tuning import MMAP_THRESHOLD, tune_malloc

def resident_kb():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4

assert tune_malloc()
bytearray(16 * 1024 * 1024)  # allocated and freed at once
tensors = [np.ones(MMAP_THRESHOLD + 1024 * 1024, np.uint8) for _ in range(8)]
kept = bytearray(4000)
before = resident_kb()
del tensors
print(before - resident_kb())
"""


@glibc
def test_a_large_buffer_goes_back_as_it_is_freed() -> None:
    # glibc's default raises its mmap threshold to the largest mapped buffer freed, so after
    # the 16 MB one the decoder-sized buffers would come from the heap and stay resident
    # behind the small block allocated after them.
    run = subprocess.run(
        [sys.executable, "-c", _LARGE_BUFFERS],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[1],  # this checkout's sandbox
    )
    assert int(run.stdout) > 30_000  # of the 40 MB freed, with no trim asked
