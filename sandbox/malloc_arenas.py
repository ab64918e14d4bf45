"""Fewer glibc malloc arenas, so the audio threads' buffers do not spread over many heaps.

glibc gives each thread that contends for the heap an arena of its own (up to 8 per core),
and freed memory in one arena is not reused by another: with Whisper, Piper, the capture,
playout and listener threads each allocating audio-sized buffers, the process's resident
memory creeps up over a long call. Two arenas keep the threads' allocations close.
"""

from __future__ import annotations

import ctypes
import ctypes.util

#: ``mallopt``'s parameter number for the arena limit (glibc's malloc.h).
M_ARENA_MAX = -8
ARENAS = 2


def limit_malloc_arenas() -> bool:
    """Cap glibc's arenas at :data:`ARENAS`; call before threads start. False where the C
    library is not glibc (nothing changes there)."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_ARENA_MAX, ARENAS))
