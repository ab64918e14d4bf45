"""One target under atheris (libFuzzer's coverage-guided engine), in its own process.

``python -m sandbox_fuzz.libfuzzer TARGET RUNS STATS.json ESCAPES_DIR CORPUS_DIR`` runs
``RUNS`` inputs, keeps the first input of each distinct escape in ``ESCAPES_DIR``, and
writes what it saw to ``STATS.json``. An escape is counted and the run goes on, so one
run says how many inputs escaped, not just the first.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["sandbox", "tomllib", "jwt"]):
    from sandbox_fuzz.guard import guarded
    from sandbox_fuzz.targets import TARGETS

#: The longest input libFuzzer makes; structured targets read choices, so a few KiB is plenty.
MAX_LEN = 2048


@dataclass
class Tally:
    """What one run saw: inputs, escapes, and each distinct escape's first input."""

    target: str
    inputs: int = 0
    escapes: int = 0
    seconds: float = 0.0
    kinds: dict[str, dict[str, str]] = field(default_factory=dict)


def escape_signature(exc: BaseException) -> str:
    """What makes two escapes the same: the exception's type and where it was raised."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    return f"{type(exc).__name__} at {where}"


def main(argv: list[str]) -> None:
    """See the module doc."""
    name, runs = argv[1], int(argv[2])
    stats_path, escapes_dir, corpus = (Path(arg) for arg in argv[3:6])
    target = TARGETS[name].run
    escapes_dir.mkdir(parents=True, exist_ok=True)
    corpus.mkdir(parents=True, exist_ok=True)
    tally = Tally(name)
    started = time.monotonic()

    def one(data: bytes) -> None:
        try:
            guarded(target, data)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # a target's SystemExit escapes too
            tally.escapes += 1
            signature = escape_signature(exc)
            if signature not in tally.kinds:
                kept = escapes_dir / f"{name}-{hashlib.sha1(data).hexdigest()[:12]}.bin"
                kept.write_bytes(data)
                tally.kinds[signature] = {"message": str(exc)[:300], "input": str(kept)}
        tally.inputs += 1
        if tally.inputs == runs:
            tally.seconds = round(time.monotonic() - started, 1)
            stats_path.write_text(json.dumps(asdict(tally), indent=2))
            os._exit(0)  # libFuzzer has no "stop after this input" that returns

    # Inputs grow to full length quickly: structured targets need room for many events.
    flags = [f"-max_len={MAX_LEN}", "-len_control=10", "-runs=-1"]
    atheris.Setup([argv[0], *flags, str(corpus)], one)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
