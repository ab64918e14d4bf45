"""The arena cap is taken by glibc (this machine's C library) before any thread starts, and
freed memory goes back to the system when asked."""

from __future__ import annotations

import platform

import pytest

from sandbox.malloc_arenas import give_back_free_memory, limit_malloc_arenas

glibc = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc")


@glibc
def test_glibc_takes_the_cap() -> None:
    assert limit_malloc_arenas() is True


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
