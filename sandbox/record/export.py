"""A stored session as the report JSON (the same keys ``sandbox call --report`` writes).

A call that reached its end stored its report with its index, and that is the export. A
call cut short (the process was killed) has only its frames: the report is rebuilt from
them as the wire shows it — each unit's generated text from its chunks and its heard text
from its Finalize — with outcome ``unfinished``. Frames are re-decoded from their raw
bytes by this build, so a frame an older build could not read is read now.
"""

from __future__ import annotations

import time
from typing import Any

from sandbox.record.recorder import REPORT_VERSION, FrameRecord
from sandbox.record.store import SessionRow, SessionStore, StoredFrame
from sandbox.wire.codec import WireError, decode
from sandbox.wire.plain import describe


def frame_record(frame: StoredFrame) -> FrameRecord:
    """A stored frame decoded by this build (an undecodable one says why)."""
    try:
        arm, fields = describe(decode(frame.raw))
    except WireError as exc:
        return FrameRecord(
            frame.t_ms, frame.dir, "undecodable", {"detail": str(exc), "bytes": len(frame.raw)}
        )
    return FrameRecord(frame.t_ms, frame.dir, arm, fields)


def session_report(store: SessionStore, row: SessionRow) -> dict[str, Any]:
    """The session's report: the one it wrote at its end, or one rebuilt from its frames."""
    stored = store.report(row.id)
    if stored is not None:
        return stored
    return _from_frames(row, [frame_record(f) for f in store.frames(row.id)])


def _from_frames(row: SessionRow, frames: list[FrameRecord]) -> dict[str, Any]:
    units: dict[int, dict[str, Any]] = {}
    callers: list[str] = []
    errors: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    watermark = 0
    for frame in frames:
        f = frame.fields
        if frame.type == "speech_start" and frame.dir == "in":
            sid = int(f.get("speech_id", 0))
            units.setdefault(sid, _unit(sid, int(f.get("turn_id", 0))))
        elif frame.type == "speech_chunk" and frame.dir == "in":
            unit = units.get(int(f.get("speech_id", 0)))
            if unit is not None:
                unit["generated"] += str(f.get("text", ""))
        elif frame.type == "finalize" and frame.dir == "out":
            unit = units.get(int(f.get("speech_id", 0)))
            if unit is not None:
                unit["heard"] = str(f.get("heard_text", ""))
                unit["fate"] = "finalized"
        elif frame.type == "user_message" and frame.dir == "out":
            callers.append(str(f.get("text", "")))
        elif frame.type == "interruption":
            watermark = max(watermark, int(f.get("through_turn", 0)))
        elif frame.type == "turn_step" and frame.dir == "in":
            steps.append({"t_ms": frame.t_ms, **f})
        elif frame.type == "error":
            errors.append(
                {
                    "t_ms": frame.t_ms,
                    "dir": frame.dir,
                    "code": str(f.get("code", "")),
                    "message": str(f.get("message", "")),
                    "fatal": bool(f.get("fatal", False)),
                }
            )
    for unit in units.values():
        unit["relayed"] = unit["generated"]
        unit["interrupted"] = unit["fate"] == "finalized" and unit["heard"] != unit["generated"]
        unit["words_heard"] = len(unit["heard"].split())
        unit["words_total"] = len(unit["generated"].split())
    return {
        "report_version": REPORT_VERSION,
        "session_id": row.id,
        "brain_url": row.brain_url,
        "started_at": _started(row.started_at),
        "outcome": "unfinished",
        "ended_by": "unfinished",
        "end_detail": "the call never reached its end; this report is rebuilt from its frames",
        "settings": "",
        "watermark": watermark,
        "caller_turns": callers,
        "turn_closes": {},
        "units": list(units.values()),
        "steps": steps,
        "errors": errors,
        "alignment_skips": 0,
        "frames": [frame.as_json() for frame in frames],
    }


def _started(at: float) -> str:
    """A stored start time as the report spells it; empty when the row's is no time at all
    (a damaged row must not keep its frames from being read)."""
    try:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))
    except (OverflowError, OSError, ValueError, TypeError):
        return ""


def _unit(speech_id: int, turn_id: int) -> dict[str, Any]:
    return {
        "speech_id": speech_id,
        "turn_id": turn_id,
        "generated": "",
        "heard": "",
        "fate": "in play",
        "discarded": [],
    }
