"""A brain flooding Requests or units cannot grow ``sandbox call``, and a SIGTERM ends it
(issue 56), end to end: the real command against ``python -m sandbox.brains.hostile`` in a
process of its own over a real WebSocket, hung up mid-flood, then its output, its report
and the stored session it left.

Before, 200,000 Requests kept every Request and Response (a 59 MB report, exit 4.6 s after
the SIGTERM), and 14,353 units opened and never closed printed 14,360 lines and made a report
entry and records each, which the end of the call wrote out (exit 5.4 s after the SIGTERM).
Bounds here are counts, not timings (but for a generous one); ``sandbox bench --hostile``
measures memory and the hang-up → exit time.
"""

from __future__ import annotations

import json
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cli_rig import call_hung_up_after, sandbox_cli

from sandbox.brains.hostile import hostile_process
from sandbox.call.core import MAX_REQUESTS_KEPT
from sandbox.call.unit_sample import MAX_UNITS_KEPT, UNITS_SAMPLED
from sandbox.host.brain_side import MAX_WAITING_FRAMES
from sandbox.record.recorder import KIND_KEPT, SAMPLE_KEPT
from sandbox.record.store import SessionStore
from sandbox.record.stored_call import StoredCall

#: A caller who says a line, then waits for ever: the flood answers that line.
WAITS = """ms_per_word = 1
[[step]]
say = "Hello there."
[[step]]
silence_ms = 600000
[[step]]
end = true
"""
#: How long the flood runs before the SIGTERM: long enough for thousands of frames.
FLOOD_S = 6
#: More than a bounded call's report comes near (the Request flood's was 59 MB).
SMALL_BYTES = 5_000_000
#: The most frames of a kind kept past the call's cap on it: those read ahead of the core
#: (judged before it counted them), its sample, and the sample of what came after the end.
AFTER_THE_CAP = MAX_WAITING_FRAMES + 1 + 2 * SAMPLE_KEPT


@dataclass(frozen=True)
class HungUp:
    """A ``sandbox call`` hung up on by SIGTERM mid-flood: its output and what it left."""

    returncode: int
    exited_s: float
    stdout: str
    stderr: str
    report: dict[str, Any]
    report_bytes: int
    stored: StoredCall


def _hung_up_mid_flood(tmp_path: Path, behaviour: str) -> HungUp:
    script = tmp_path / "caller.toml"
    script.write_text(WAITS)
    report_path = tmp_path / "report.json"
    with hostile_process(behaviour, "--per-second", "0") as url:
        call = call_hung_up_after(tmp_path, url, script, report_path, FLOOD_S)
    report = json.loads(report_path.read_text())
    with SessionStore(tmp_path / "sessions.db") as store:
        stored = StoredCall.load(store, store.find(report["session_id"]))
    size = report_path.stat().st_size
    return HungUp(call.returncode, call.exited_s, call.stdout, call.stderr, report, size, stored)


def _reads_back(call: HungUp) -> None:
    """The session reads back: its inputs were only counted, so it is read from the core's
    records, and those give the report's units their fates again."""
    assert isinstance(call.stored.inputs, str) and "flood past its sample" in call.stored.inputs
    assert [u.fate for u in call.stored.rebuilt.units] == [u.fate for u in call.stored.report.units]


def test_a_request_flood_is_answered_kept_as_a_sample_and_ended_by_a_sigterm(
    tmp_path: Path,
) -> None:
    call = _hung_up_mid_flood(tmp_path, "requests")
    assert call.returncode == 128 + signal.SIGTERM, call.stderr[-3000:]
    assert call.exited_s < 10  # measured well under 2 s (sandbox bench --hostile)
    assert call.report["ended_by"] == "caller"
    frames = call.report["frames"]
    requests = [f for f in frames if f["dir"] == "in" and f["type"] == "request"]
    responses = [f for f in frames if f["dir"] == "out" and f["type"] == "response"]
    # Every Request kept was answered REJECTED (it names no operation), in its order.
    assert [r["request_id"] for r in responses] == [r["request_id"] for r in requests][
        : len(responses)
    ]
    assert {r["status"] for r in responses} == {"STATUS_REJECTED"}
    # The record kept the call's first MAX_REQUESTS_KEPT, those read ahead of the core,
    # a sample, and a sample of those after the end; the rest are counted.
    assert MAX_REQUESTS_KEPT <= len(requests) <= MAX_REQUESTS_KEPT + AFTER_THE_CAP
    assert call.report["frames_unkept"]["request_past_cap"] > 10 * MAX_REQUESTS_KEPT
    assert call.report_bytes < SMALL_BYTES
    _reads_back(call)
    # The printers say how much was only counted: the call's summary and sessions show.
    counted = f"{call.report['frames_unkept']['request_past_cap']:,} request_past_cap"
    unkept = [line for line in call.stdout.splitlines() if "not kept (only counted)" in line]
    assert len(unkept) == 1 and counted in unkept[0], call.stdout[-2000:]
    shown = sandbox_cli(tmp_path, "sessions", "show", call.report["session_id"])
    assert shown.returncode == 0, shown.stderr
    assert f"not kept (only counted): {counted}" in shown.stdout


def test_a_flood_of_units_is_honoured_kept_as_a_sample_and_ended_by_a_sigterm(
    tmp_path: Path,
) -> None:
    call = _hung_up_mid_flood(tmp_path, "open_units")
    assert call.returncode == 128 + signal.SIGTERM, call.stderr[-3000:]
    assert call.exited_s < 10  # measured well under 2 s (sandbox bench --hostile)
    assert call.report["ended_by"] == "caller"
    # The report keeps the greeting and the flood's first units, then a sample; the rest
    # are counted (each was opened and Finalized all the same: the contract sets no limit).
    units, unkept = call.report["units"], call.report["units_unkept"]
    assert MAX_UNITS_KEPT < len(units) <= MAX_UNITS_KEPT + UNITS_SAMPLED
    assert unkept > MAX_UNITS_KEPT, unkept
    assert {u["fate"] for u in units[1:]} <= {"silent", "abandoned"}  # none said a word
    assert call.stored.row.units == len(units) + unkept  # the index counts every one
    # Every unit of the first MAX_UNITS_KEPT, whose frames are all kept, has its Finalize,
    # in the order the units opened.
    finalized = [f["speech_id"] for f in call.report["frames"] if f["type"] == "finalize"]
    first = [u["speech_id"] for u in units[:MAX_UNITS_KEPT]]
    assert finalized[:MAX_UNITS_KEPT] == first
    # Printed as one line for the run of empty units kept, not one line each, and the
    # summary and sessions show say how many units were only counted.
    bot = [line for line in call.stdout.splitlines() if line.startswith("  bot")]
    assert len(bot) == 2, bot  # the greeting, then the run
    assert f"{len(units) - 1:,} empty units" in bot[1]
    summary = [line for line in call.stdout.splitlines() if "not kept (only counted)" in line]
    assert len(summary) == 1 and f"{unkept:,} units" in summary[0], call.stdout[-2000:]
    shown = sandbox_cli(tmp_path, "sessions", "show", call.report["session_id"])
    assert shown.returncode == 0, shown.stderr
    assert f"not kept (only counted): {unkept:,} units" in shown.stdout
    # The record kept the first MAX_UNITS_KEPT units' frames (and those read ahead of the
    # core), then a sample of the rest, and a sample of those after the end.
    starts = [f for f in call.report["frames"] if f["type"] == "speech_start"]
    assert len(starts) <= MAX_UNITS_KEPT + KIND_KEPT + AFTER_THE_CAP
    assert call.report_bytes < SMALL_BYTES
    _reads_back(call)
    assert call.stored.rebuilt.units_unkept == unkept
