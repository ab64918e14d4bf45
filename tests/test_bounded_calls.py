"""An endless stream of valid chunks cannot grow ``sandbox call``, and a hang-up ends it
(issue 43), end to end: the real command against ``python -m sandbox.brains.hostile endless
--per-second 0`` (valid chunks flat out, for ever, Interruption and End ignored) in a process
of its own, then the report and the stored session it left.

Before, a caller who barged in after 20 words and hung up waited 20 s for the command to
end, its report 18 MB with 142,697 frames. Bounds here are counts, not timings (but for
generous ones); ``sandbox bench --hostile`` measures memory and the hang-up → exit time.
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from cli_rig import call_hung_up_after, sandbox_cli

from sandbox.brains.hostile import hostile_process
from sandbox.call.units import MAX_UNIT_CHUNKS
from sandbox.host.brain_side import MAX_WAITING_FRAMES
from sandbox.record.recorder import SAMPLE_KEPT
from sandbox.record.store import SessionStore

FLAT_OUT = ("--per-second", "0")
#: A caller who talks over the reply after 20 words, then hangs up at once.
BARGE_AND_HANG_UP = """ms_per_word = 1
[[step]]
say = "Hello there."
[[step]]
barge_in = "Stop, please."
after_words = 20
[[step]]
end = "now"
"""
#: The same caller, who then waits for a reply that never ends, until a SIGTERM.
BARGE_AND_WAIT = BARGE_AND_HANG_UP.replace('end = "now"', "end = true")
#: More than a report or a store of a bounded call comes near (before: 18 MB, 30 MB).
SMALL_BYTES = 5_000_000
#: Frames read ahead of the core when a unit died or passed its limit: never counted.
READ_AHEAD = MAX_WAITING_FRAMES + 1
#: The most chunks of one unit kept besides those it took before it died or passed its
#: limit: those read ahead, its own sample, and the sample of what came after the end.
AFTER_THE_CUT = READ_AHEAD + 2 * SAMPLE_KEPT


def _stored_bytes(home: Path) -> int:
    return sum(f.stat().st_size for f in home.glob("sessions.db*"))


def _chunks_of(report: dict[str, Any], speech_id: int) -> int:
    return sum(
        1
        for f in report["frames"]
        if f["type"] == "speech_chunk" and f.get("speech_id") == speech_id
    )


def test_a_hang_up_ends_an_endless_stream_at_once_and_its_record_stays_small(
    tmp_path: Path,
) -> None:
    script = tmp_path / "caller.toml"
    script.write_text(BARGE_AND_HANG_UP)
    report_path = tmp_path / "report.json"
    with hostile_process("endless", *FLAT_OUT) as url:
        started = time.monotonic()
        done = sandbox_cli(
            tmp_path,
            *("call", "--audio", "sim", "--brain", url),
            *("--script", str(script), "--report", str(report_path)),
            timeout=120,
        )
        took = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-3000:]
    assert took < 30  # it took 20 s here before (and 34 s on a busier machine)
    report = json.loads(report_path.read_text())
    assert report["ended_by"] == "caller"
    # What the brain sent after the End is a sample and a count, not every frame.
    frames = report["frames"]
    end = next(i for i, f in enumerate(frames) if f["dir"] == "out" and f["type"] == "end")
    assert len(frames) - end - 1 <= SAMPLE_KEPT
    assert report["frames_unkept"]["after_end"] > 0
    # The barged unit kept its frames up to the barge-in (read ahead of the core at most
    # MAX_WAITING_FRAMES), then a sample.
    (barged,) = [u for u in report["units"] if u["speech_id"] == 2]
    assert barged["fate"] == "barged"
    assert _chunks_of(report, 2) <= len(barged["relayed"].split()) + AFTER_THE_CUT
    assert report_path.stat().st_size < SMALL_BYTES
    assert _stored_bytes(tmp_path) < SMALL_BYTES
    with SessionStore(tmp_path / "sessions.db") as store:
        stored = store.frames(report["session_id"])
        events = store.events(report["session_id"])
    assert len(stored) == len(frames)
    counted = [e.data for e in events if e.kind == "frames_unkept"][-1]  # the counts at the end
    unkept = {"counts": report["frames_unkept"], "kept": SAMPLE_KEPT, "units": 0}
    assert counted == unkept and report["units_unkept"] == 0


@pytest.mark.slow
def test_twenty_seconds_of_an_endless_stream_keep_the_record_bounded(tmp_path: Path) -> None:
    """The caller barges in (the brain opens another endless unit for that line) and waits
    for a reply that never ends; 20 s later a SIGTERM hangs up. The live unit stops at its
    limit, the dead one at its sample: what the record keeps does not grow with the time."""
    script = tmp_path / "caller.toml"
    script.write_text(BARGE_AND_WAIT)
    report_path = tmp_path / "report.json"
    with hostile_process("endless", *FLAT_OUT) as url:
        call = call_hung_up_after(tmp_path, url, script, report_path, 20)
    assert call.returncode == 128 + signal.SIGTERM, call.stderr[-3000:]
    assert call.exited_s < 10  # measured well under 2 s (sandbox bench --hostile)
    report = json.loads(report_path.read_text())
    counted = report["frames_unkept"]
    assert counted["dead_unit"] > 0 and counted["past_cap"] > 0, counted
    (dead, live) = [u for u in report["units"] if u["speech_id"] in (2, 3)]
    assert dead["fate"] == "barged" and live["fate"] == "abandoned"
    # The live unit: every chunk it took, the one that passed its limit, then a sample.
    assert _chunks_of(report, 3) <= MAX_UNIT_CHUNKS + AFTER_THE_CUT
    assert _chunks_of(report, 2) <= len(dead["relayed"].split()) + AFTER_THE_CUT
    assert report_path.stat().st_size < SMALL_BYTES
    assert _stored_bytes(tmp_path) < 4 * SMALL_BYTES
