"""A hostile brain cannot make a call hold, write or store without bound (issue 28, item 4).

Each test runs the real ``sandbox call --audio sim`` against a misbehaving brain in a process
of its own (``python -m sandbox.brains.hostile``), then reads what the call left behind: its
report and its session in the store. Sizes here are bounded by count, not by what the brain
sent, so smaller floods than the bench's (``sandbox bench --hostile``: 300,000 frames, thirty
15 MB chunks) show the same bounds; the bench measures the memory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox.brains.hostile import ANSWER, hostile_process
from sandbox.call.core import MAX_ERROR_CHARS
from sandbox.paths import HOME_ENV
from sandbox.record.recorder import CUT_KEPT_BYTES, MALFORMED_KEPT
from sandbox.record.store import SessionStore, StoredEvent, StoredFrame
from sandbox.record.stored_call import StoredCall

#: A report this size or more is not bounded (300,000 kept frames made one of 70 MB).
SMALL_REPORT = 2_000_000
CALL = (sys.executable, "-m", "sandbox.cli", "call", "--audio", "sim")
SCRIPT = """ms_per_word = 1
[[step]]
say = "Hello there."
[[step]]
say = "Are you still there?"
[[step]]
end = true
"""


@dataclass(frozen=True)
class Call:
    """A finished ``sandbox call``: its output, report, and stored session."""

    done: subprocess.CompletedProcess[str]
    report_path: Path
    report: dict[str, Any]
    frames: list[StoredFrame]
    events: list[StoredEvent]
    store_bytes: int


def _call(tmp_path: Path, behaviour: str, *args: str) -> Call:
    script = tmp_path / "caller.toml"
    script.write_text(SCRIPT)
    report_path = tmp_path / "report.json"
    with hostile_process(behaviour, *args) as url:
        done = subprocess.run(
            [*CALL, "--brain", url, "--script", str(script), "--report", str(report_path)],
            env={**os.environ, HOME_ENV: str(tmp_path)},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(report_path.read_text())
    with SessionStore(tmp_path / "sessions.db") as store:
        frames = store.frames(report["session_id"])
        events = store.events(report["session_id"])
    stored = sum(f.stat().st_size for f in tmp_path.glob("sessions.db*"))
    return Call(done, report_path, report, frames, events, stored)


def test_garbage_frames_are_kept_up_to_a_bound_and_counted_after(tmp_path: Path) -> None:
    sent = 20_000
    call = _call(tmp_path, "garbage", "--garbage-frames", str(sent))
    # The call went on: the answer after the garbage played, the caller's next line too.
    assert call.done.stdout.count(ANSWER) == 2
    assert call.report["outcome"] == "completed"
    # The first MALFORMED_KEPT are kept whole; the rest counted, in the report and the store.
    undecodable = [f for f in call.report["frames"] if f["type"] == "undecodable"]
    assert len(undecodable) == MALFORMED_KEPT
    assert call.report["malformed_unkept"] == sent - MALFORMED_KEPT
    unkept = [e for e in call.events if e.kind == "malformed_unkept"][-1]  # the count at the end
    assert unkept.data == {"count": sent - MALFORMED_KEPT, "kept": MALFORMED_KEPT}
    # Each malformed frame is an Error to the brain up to the call's bound, then counted.
    malformed = [e for e in call.report["errors"] if e["code"] == "ERROR_CODE_MALFORMED"]
    assert len(malformed) == len(call.report["errors"]) == 200
    assert call.report["errors_uncounted"] == sent - 200
    assert "later ones are only counted" in malformed[-1]["message"]
    # Bounded whatever the count: report, stored frames, store.
    assert call.report_path.stat().st_size < SMALL_REPORT
    stored_undecodable = [f for f in call.frames if f.dir == "in" and f.raw == b"\xff"]
    assert len(stored_undecodable) == MALFORMED_KEPT
    assert len(call.frames) < 1_000
    assert call.store_bytes < SMALL_REPORT
    # The inputs the record only counted are not stored one by one either: the stored call
    # says so, and is read from the core's records it kept.
    with SessionStore(tmp_path / "sessions.db") as store:
        stored = StoredCall.load(store, store.find(call.report["session_id"]))
    assert isinstance(stored.inputs, str) and "flood past its sample" in stored.inputs
    assert [u.fate for u in stored.rebuilt.units] == [u.fate for u in stored.report.units]


def test_oversized_chunks_are_stored_as_their_start_and_length(tmp_path: Path) -> None:
    chunks, size = 5, 15_000_000
    call = _call(tmp_path, "huge", "--huge-chunks", str(chunks))
    # Each chunk over the limit is a PROTOCOL error and dropped; the rest of the unit plays.
    dropped = [e for e in call.report["errors"] if "frame dropped" in e["message"]]
    assert len(dropped) == chunks
    assert "Sorry, that was a lot." in call.done.stdout
    assert call.done.stdout.count(ANSWER) == 1
    # The report shows each one's first CUT_KEPT_BYTES characters and its length.
    huge = [f for f in call.report["frames"] if f.get("bytes", 0) > size]
    assert len(huge) == chunks
    for frame in huge:
        assert frame["type"] == "speech_chunk"
        assert (
            frame["text"] == "x" * CUT_KEPT_BYTES + f"… [{size - CUT_KEPT_BYTES:,} more characters]"
        )
    assert call.report_path.stat().st_size < SMALL_REPORT
    # The store keeps each one's first CUT_KEPT_BYTES, and an event with its place and length.
    cuts = [e.data for e in call.events if e.kind == "frame_cut"]
    assert len(cuts) == chunks
    by_seq = {f.seq: f for f in call.frames}
    for cut in cuts:
        kept = by_seq[cut["seq"]]
        assert len(kept.raw) == cut["kept_bytes"] == CUT_KEPT_BYTES
        assert cut["bytes"] == huge[0]["bytes"]
        assert kept.raw[-100:] == b"x" * 100  # the chunk's own start, verbatim
    assert max(len(f.raw) for f in call.frames) == CUT_KEPT_BYTES
    assert call.store_bytes < SMALL_REPORT


def test_a_brains_oversized_errors_are_kept_as_their_start(tmp_path: Path) -> None:
    sent, size = 5, 15_000_000
    call = _call(tmp_path, "huge_errors", "--huge-chunks", str(sent))
    assert call.done.stdout.count(ANSWER) >= 1  # the call went on
    told = [e for e in call.report["errors"] if e["dir"] == "in"]
    assert len(told) == sent
    for error in told:
        assert error["message"] == "e" * MAX_ERROR_CHARS + (
            f"… [{size - MAX_ERROR_CHARS:,} more characters]"
        )
    assert len(call.done.stdout) < SMALL_REPORT
    assert call.report_path.stat().st_size < SMALL_REPORT
    assert len([e for e in call.events if e.kind == "frame_cut"]) == sent
    assert call.store_bytes < SMALL_REPORT
