"""The JSON Schemas of the bench's results, built from the declared keys: ``sandbox schema
bench`` prints the full run's (:mod:`sandbox_bench.run_keys`), ``sandbox schema
bench-MODE`` a mode's run on its own (:mod:`sandbox_bench.mode_keys`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from sandbox_bench.bench_key import BenchKey, Mode, Stage
from sandbox_bench.mode_keys import MODES
from sandbox_bench.run_keys import FULL_RUN

#: How every result's schema ends its description.
_UNITS = "x-unit is a figure's unit (frac: 0..1, x: a ratio)."


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


def _schema(title: str, description: str, stages: tuple[Stage, ...]) -> dict[str, Any]:
    """The JSON Schema (2020-12) of a result holding ``stages``' keys, no other."""
    properties: dict[str, Any] = {}
    patterns: dict[str, Any] = {}
    for stage in stages:
        for key in stage.keys:
            pattern = key.pattern
            if pattern is None:
                properties[key.name] = _property(key, stage)
            else:
                patterns[pattern] = _property(key, stage)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": title,
        "description": description,
        "type": "object",
        "properties": properties,
        "patternProperties": patterns,
        "additionalProperties": False,
    }


def bench_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of the full run's result: every key declared, no other."""
    return _schema(
        "sandbox bench --json",
        "The bench's figures, their targets (x-target; reported, never enforced) and the "
        f"peer's; {_UNITS}",
        FULL_RUN,
    )


def mode_schema(mode: Mode) -> dict[str, Any]:
    """The JSON Schema (2020-12) of ``mode``'s result run on its own."""
    return _schema(
        f"sandbox bench {mode.usage} --json",
        f"The bench's --{mode.flag} figures and their targets (x-target; reported, never "
        f"enforced); {_UNITS}",
        mode.stages,
    )


#: What ``sandbox schema`` prints of the bench, by name: the full run's result as ``bench``,
#: each mode run on its own as ``bench-MODE``.
SCHEMAS: dict[str, Callable[[], dict[str, Any]]] = {
    "bench": bench_schema,
    **{f"bench-{mode.flag}": functools.partial(mode_schema, mode) for mode in MODES},
}
