"""What loading a language's recognizer costs: its load time and the resident memory it adds,
in a process of its own (``python -m sandbox_bench.recognizer_cost CODE`` prints one JSON
object), so nothing else this bench holds is counted.

English is heard by the default recognizer (Whisper tiny.en); the other languages by
Whisper base (the ``languages`` extra), whose parts are joined into the data directory
first (not timed: it happens once an install).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from typing import Any

from sandbox.errors import UserError
from sandbox_bench.language_set import ENGLISH
from sandbox_bench.soak import rss_mb

#: Longest a load may take on a loaded machine.
LOAD_S = 300.0


def measure(code: str) -> dict[str, Any]:
    """Load the recognizer ``code`` is heard with, here: its name, seconds, MB added."""
    from sandbox.audio import multilingual_model
    from sandbox.audio.stt import Transcriber

    folder = None if code == ENGLISH else str(multilingual_model.model_folder())
    before = rss_mb()
    started = time.monotonic()
    loaded = Transcriber.load(folder, name=None if folder is None else multilingual_model.NAME)
    seconds = time.monotonic() - started
    return {
        "recognizer": loaded.name,
        "load_s": round(seconds, 2),
        "rss_mb": round(rss_mb() - before, 1),
    }


async def recognizer_cost(code: str) -> dict[str, Any]:
    """:func:`measure` for ``code`` in a child process (the data directory inherited)."""
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "sandbox_bench.recognizer_cost", code],
        capture_output=True,
        text=True,
        timeout=LOAD_S,
        check=False,
    )
    if done.returncode != 0:
        raise UserError(f"loading the recognizer for {code} failed: {done.stderr.strip()[-300:]}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


if __name__ == "__main__":
    print(json.dumps(measure(sys.argv[1])))
