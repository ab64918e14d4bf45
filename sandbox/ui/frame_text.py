"""Frames as the wire pane shows them: direction, turn, speech id, fields, and the filter.

A frame's text fields are the brain's words: shown as JSON strings whose controls are
escapes (:func:`visible`, :func:`json_text`), never as markup.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from sandbox.record.plain_text import json_text, visible
from sandbox.record.recorder import FrameRecord

#: Direction as the wire contract writes it: V→B from Voqalize, B→V from the brain.
ARROWS = {"out": "V→B", "in": "B→V"}
#: Fields the turn and speech columns already show.
_COLUMNS = frozenset({"turn_id", "speech_id"})
_SUMMARY_LIMIT = 200


def frame_turn(record: FrameRecord, turn_of_unit: Mapping[int, int]) -> str:
    """The turn a frame names or answers: its own turn_id, ``≤N`` for an Interruption's
    watermark, or the turn its speech unit was opened on."""
    fields = record.fields
    if "turn_id" in fields:
        return str(fields["turn_id"])
    if "through_turn" in fields:
        return f"≤{fields['through_turn']}"
    speech_id = fields.get("speech_id")
    if isinstance(speech_id, int) and speech_id in turn_of_unit:
        return str(turn_of_unit[speech_id])
    return ""


def frame_speech(record: FrameRecord) -> str:
    """The speech unit a frame belongs to, or empty."""
    speech_id = record.fields.get("speech_id")
    return "" if speech_id is None else str(speech_id)


def _value(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_value(v)}" for k, v in value.items()) + "}"
    return str(value).lower() if isinstance(value, bool) else str(value)


def frame_summary(record: FrameRecord, limit: int = _SUMMARY_LIMIT) -> str:
    """The decoded fields the other columns do not show, ``name=value``, shortened."""
    text = " ".join(f"{k}={_value(v)}" for k, v in record.fields.items() if k not in _COLUMNS)
    return visible(text if len(text) <= limit else text[: limit - 1] + "…")


def frame_detail(record: FrameRecord) -> str:
    """The whole frame, every field, as indented JSON."""
    return json_text(record.as_json(), indent=2)


def parse_filter(text: str) -> tuple[str, ...]:
    """Filter terms: words separated by spaces or commas, lower-cased."""
    return tuple(t for t in re.split(r"[\s,]+", text.strip().lower()) if t)


def matches(record: FrameRecord, terms: tuple[str, ...]) -> bool:
    """Whether a frame passes the filter: its type contains one of the terms (any type when
    there are none), and none of the terms written with a leading ``-``."""
    wanted = [t for t in terms if not t.startswith("-")]
    unwanted = [t[1:] for t in terms if t.startswith("-") and len(t) > 1]
    if any(term in record.type for term in unwanted):
        return False
    return not wanted or any(term in record.type for term in wanted)
