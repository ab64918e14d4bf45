"""A saved session's caller side as a caller script (the TOML ``sandbox call --script`` plays).

Read from the session's events, in the order they were recorded: each spoken or typed turn,
each backchannel and barge-in at the same point of the bot's reply (how many of its words
had played since the caller's last turn: a word, not a millisecond, since a new brain's
replies differ), each RTVI message the app sent, and a silence for each idle nudge. A turn
counts as a barge-in when the call went *interrupted* just before it (the caller took the
floor over the bot). A simulated call keeps its speaking rate.
"""

from __future__ import annotations

import json
import re
import statistics
from typing import Any

from sandbox.record.export import frame_record
from sandbox.record.store import StoredEvent, StoredFrame
from sandbox.wire.catalog import rtvi_spelling

#: Silence added after an idle nudge's own, so the nudge fires before the caller goes on.
IDLE_MARGIN_MS = 500
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")

Step = dict[str, Any]


def caller_steps(frames: list[StoredFrame], events: list[StoredEvent]) -> list[Step]:
    """The caller's steps, in order (see the module doc)."""
    steps: list[tuple[int, int, Step]] = []  # (t_ms, order, step): app frames merge by time
    words = 0
    interrupted_at: int | None = None  # words played when the caller took the floor
    for event in events:
        data = event.data
        if event.kind == "word_played":
            words += 1
        elif event.kind == "state_changed" and data.get("state") == "interrupted":
            interrupted_at = words
        elif event.kind == "caller_shown":
            kind, text = str(data.get("kind")), str(data.get("text", ""))
            if kind == "backchannel":
                step: Step = {"backchannel": text, "after_words": words}
            elif kind == "typed":
                step = {"type": text}
            elif interrupted_at is not None:
                step = {"barge_in": text, "after_words": interrupted_at}
            else:
                step = {"say": text}
            steps.append((event.t_ms, event.seq, step))
            if kind != "backchannel":
                words, interrupted_at = 0, None
        elif event.kind == "caller_idle":
            steps.append(
                (event.t_ms, event.seq, {"silence_ms": int(data["idle_ms"]) + IDLE_MARGIN_MS})
            )
            words, interrupted_at = 0, None
    for frame in frames:
        record = frame_record(frame)
        if record.dir == "out" and record.type == "rtvi":
            # After the events of its millisecond: a caller's action there came first.
            steps.append(
                (record.t_ms, len(events) + frame.seq, {"rtvi": _app_frame(record.fields)})
            )
    return [step for _t, _order, step in sorted(steps, key=lambda s: (s[0], s[1]))]


def speaking_rate(events: list[StoredEvent]) -> int | None:
    """A simulated call's ms a word (the median gap between a unit's words), or None."""
    gaps = []
    last: dict[int, int] = {}
    for event in events:
        if event.kind == "word_played":
            sid = int(event.data.get("speech_id", 0))
            if sid in last:
                gaps.append(event.t_ms - last[sid])
            last[sid] = event.t_ms
    return round(statistics.median(gaps)) if gaps else None


def script_toml(steps: list[Step], ms_per_word: int | None = None, source: str = "") -> str:
    """The steps as a caller script."""
    lines = [f"# the caller's side of session {source}"] if source else []
    if ms_per_word is not None:
        lines.append(f"ms_per_word = {ms_per_word}")
    for step in steps:
        lines.append("")
        lines.append("[[step]]")
        lines += [f"{_key(key)} = {_value(value)}" for key, value in step.items()]
    return "\n".join(lines) + "\n"


def _app_frame(fields: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": rtvi_spelling(fields.get("type", 0))}
    data = str(fields.get("data", ""))
    try:
        out["data"] = json.loads(data) if data else {}
    except json.JSONDecodeError:
        out["data"] = data
    if "id" in fields:
        out["id"] = fields["id"]
    return out


def _key(key: str) -> str:
    return key if _BARE_KEY.match(key) else json.dumps(key)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(str(value))
