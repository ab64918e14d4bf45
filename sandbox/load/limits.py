"""How much ``sandbox load`` takes: each number's range (held where it is parsed:
:mod:`sandbox.option_values`), and the open files its calls need on this machine.

A number past its range is a mistake or a test of the tool itself (``--ramp 1e308`` would
start its second call in 10^300 years); a run the machine cannot hold is refused before it
starts, not found out as calls that fail for the load generator's want of files and read
as the brain's failures.
"""

from __future__ import annotations

import resource

from sandbox.errors import UserError

MAX_CALLS = 100_000
MAX_CONCURRENCY = 10_000
#: An hour to reach full concurrency.
MAX_RAMP_S = 3_600.0
#: Files one call holds open: its socket, and when it is recorded the store's database, WAL,
#: shared memory and the call's lock (measured: 1 unrecorded, 4 recorded), and one more
#: for a built-in brain's end of the socket when it is served in this process.
FILES_PER_CALL = 5
#: Files the process holds besides its calls: the store, the log, libraries, the brain's
#: listening socket.
FILES_BESIDES = 64


def open_files_for(concurrency: int) -> None:
    """Let this process open the files ``concurrency`` calls need: its soft limit raised
    toward its hard one; a UserError when even the hard one is too low."""
    needed = concurrency * FILES_PER_CALL + FILES_BESIDES
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or needed <= soft:
        return
    if hard != resource.RLIM_INFINITY and needed > hard:
        most = max(1, (hard - FILES_BESIDES) // FILES_PER_CALL)
        raise UserError(
            f"{concurrency:,} calls at once need about {needed:,} open files, and this "
            f"machine lets a process open {hard:,} (ulimit -Hn): place at most {most:,} at "
            "once (--concurrency), or raise the limit"
        )
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
