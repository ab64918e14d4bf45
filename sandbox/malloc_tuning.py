"""glibc's malloc tuned for a long call: fewer arenas, large buffers mapped on their own, and
the arenas' free memory given back to the system between a call's turns.

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

What a trim cannot return is a freed buffer below a live one, and the threshold above which a
buffer is mapped on its own (and unmapped when freed) rises, by default, to the largest buffer
freed: Piper's decoder frees 5-12 MB tensors on every sentence, so after the first reply they
came from the heap, and the heap kept the high-water mark of every synthesis. A fixed
:data:`MMAP_THRESHOLD` of 4 MB puts those tensors in mappings of their own, returned the moment
they are freed (Whisper's and the turn model's smaller buffers stay on the heap); fixing it
also fixes the trim threshold, at glibc's 128 KB, which would trim the heap's top after nearly
every free, so :data:`TRIM_THRESHOLD` leaves that to :func:`give_back_free_memory`. Measured on
this machine: the app's peak over the bench's 24-turn session at the devices 546 MB, against
618-644 MB without (``sandbox bench --devices --json``, ``device_app_peak_rss_mb``); in a
script loading the three models and saying the bench's reply 12 times, 453 against 505-520 MB,
for ~5 ms more per transcription and ~40 ms more per 6 s reply (1 MB saved ~100 MB, for ~20 ms
and ~100 ms).
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import cache
from typing import Any

#: ``mallopt``'s parameter numbers (glibc's malloc.h).
M_ARENA_MAX = -8
M_MMAP_THRESHOLD = -3
M_TRIM_THRESHOLD = -1
ARENAS = 2
#: Buffers of this size and more are mapped on their own, and unmapped when freed.
MMAP_THRESHOLD = 4 * 1024 * 1024
#: Free memory at the heap's top kept before glibc trims it by itself.
TRIM_THRESHOLD = 256 * 1024 * 1024


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


def tune_malloc() -> bool:
    """Cap glibc's arenas at :data:`ARENAS` and fix its thresholds (see the module doc); call
    before threads start. False where the C library is not glibc (nothing changes there)."""
    mallopt = getattr(_libc(), "mallopt", None)
    if mallopt is None:
        return False
    settings = (
        (M_ARENA_MAX, ARENAS),
        (M_MMAP_THRESHOLD, MMAP_THRESHOLD),
        (M_TRIM_THRESHOLD, TRIM_THRESHOLD),
    )
    return all([bool(mallopt(param, value)) for param, value in settings])  # each one set


def give_back_free_memory() -> bool:
    """Return the free pages of every malloc arena to the system (``malloc_trim(0)``). False
    where the C library has no such call (not glibc): nothing happens there."""
    trim = getattr(_libc(), "malloc_trim", None)
    if trim is None:
        return False
    trim(0)
    return True
