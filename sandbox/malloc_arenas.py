"""Fewer glibc malloc arenas, so the audio threads' buffers do not spread over many heaps;
and the arenas' free memory given back to the system between a call's turns.

glibc gives each thread that contends for the heap an arena of its own (up to 8 per core),
and freed memory in one arena is not reused by another: with Whisper, Piper, the capture,
playout and listener threads each allocating audio-sized buffers, the process's resident
memory creeps up over a long call. Two arenas keep the threads' allocations close.

Even so, what Whisper and Piper free stays resident: glibc returns only the free top of the
main heap, and only past a threshold that rises with the largest buffer freed (to 64 MB). A
real-audio call's memory then swung between ~330 and ~600 MB from turn to turn with 110-225
MB of it free (measured with ``mallinfo2``), and its floor wandered with whichever turn had
left the heap short. :func:`give_back_free_memory` (glibc's ``malloc_trim``) returns every
arena's free pages; ~10 ms, and the next synthesis or transcription faults its pages in
again (not measurable against their run time on this machine).
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import cache
from typing import Any

#: ``mallopt``'s parameter number for the arena limit (glibc's malloc.h).
M_ARENA_MAX = -8
ARENAS = 2


@cache
def _libc() -> Any:
    """The C library, or None where there is none to load."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        return ctypes.CDLL(name)
    except OSError:
        return None


def limit_malloc_arenas() -> bool:
    """Cap glibc's arenas at :data:`ARENAS`; call before threads start. False where the C
    library is not glibc (nothing changes there)."""
    mallopt = getattr(_libc(), "mallopt", None)
    if mallopt is None:
        return False
    return bool(mallopt(M_ARENA_MAX, ARENAS))


def give_back_free_memory() -> bool:
    """Return the free pages of every malloc arena to the system (``malloc_trim(0)``). False
    where the C library has no such call (not glibc): nothing happens there."""
    trim = getattr(_libc(), "malloc_trim", None)
    if trim is None:
        return False
    trim(0)
    return True
