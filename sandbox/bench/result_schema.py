"""The JSON Schema of ``sandbox bench --json``, built from the declared keys
(:mod:`sandbox.bench.run_keys`): ``sandbox schema bench`` prints it."""

from __future__ import annotations

from typing import Any

from sandbox.bench.bench_key import BenchKey, Stage
from sandbox.bench.run_keys import FULL_RUN


def _property(key: BenchKey, stage: Stage) -> dict[str, Any]:
    """One key: its type (or null: nothing was measured), words, unit, stage and target."""
    words = key.description + ("" if key.target is None else f"; {key.target.words()}")
    out: dict[str, Any] = {"type": [key.json_type, "null"], "description": words}
    if key.label is not None:
        out["title"] = key.label.strip()
    if key.unit is not None:
        out["x-unit"] = key.unit
    out["x-stage"] = stage.name
    if key.target is not None:
        out["x-target"] = {key.target.kind: key.target.bound} | (
            {"how": key.target.how} if key.target.how else {}
        )
    return out


def bench_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of the full run's result: every key declared, no other."""
    properties: dict[str, Any] = {}
    patterns: dict[str, Any] = {}
    for stage in FULL_RUN:
        for key in stage.keys:
            pattern = key.pattern
            if pattern is None:
                properties[key.name] = _property(key, stage)
            else:
                patterns[pattern] = _property(key, stage)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "sandbox bench --json",
        "description": "The bench's figures, their targets (x-target; reported, never "
        "enforced) and the peer's; x-unit is a figure's unit (frac: 0..1, x: a ratio).",
        "type": "object",
        "properties": properties,
        "patternProperties": patterns,
        "additionalProperties": False,
    }
