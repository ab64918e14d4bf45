"""The bench's keys, declared once (``bench/sandbox_bench/run_keys.py``, ``device_keys.py``): every
key a stage writes is declared, the table's rows and the targets come from the declarations,
and ``sandbox schema bench`` is a JSON Schema the full run's result validates against."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from typing import Any

import jsonschema
import pytest
from bench_figures import device_run, stage_figures
from written_keys import SAMPLES, literal_keys

from sandbox.replay.audit import audit_totals
from sandbox_bench.bench_key import all_keys, declared
from sandbox_bench.device_keys import DEVICE_STAGES
from sandbox_bench.device_report import device_result, device_targets
from sandbox_bench.outside import DeviceFigures, DeviceTurn
from sandbox_bench.outside_floor import FloorRun, FloorTrial
from sandbox_bench.report import result, table
from sandbox_bench.result_schema import bench_schema
from sandbox_bench.run_keys import FULL_RUN, LOAD, PAUSES, RUN

#: The keys written only by stages that need the models, the devices or processes of their
#: own: each read from the dict literal its function returns or names (function, variable).
WRITTEN_BY_HEAVY_STAGES = (
    ("bench/pauses.py", "measure_pauses", None),
    ("bench/load.py", "measure_load", "figures"),
    ("bench/runner.py", "run_bench", "extra"),
    ("bench/audit.py", "audit_stored_sessions", None),
)


def _device_figures() -> dict[str, Any]:
    """The devices stage with every part: two patiences, the peer, the floor, the audit."""
    floor = FloorRun(
        (
            FloorTrial("Okay.", "en-us", False, False, 300.0, None, None),
            FloorTrial("Wait.", "en-us", True, True, None, 180.0, 0.0),
        ),
        0,
    )
    figures = DeviceFigures(
        25.0,
        (
            replace(
                device_run("app (patience 7)", 7, [900, 1000], 850, ["name", "statement"]),
                first_turn=DeviceTurn(1010.0, 700.0, "name", "line 0", "espeak en-us+m3 150"),
            ),
            device_run("app (patience 6)", 6, [800], 700, peak=612.5),
        ),
        (
            device_run("Pipecat (speech-timeout)", None, [1200, 1300], 900,
                       ["name", "statement"], strategy="speech-timeout", peak=450.0),
        ),
        {"audit_sessions": 1, **audit_totals(()), "audit_doubted": []},
        floor,
        peer_s=181.5,
        classes={"name": "names", "statement": "statements"},
    )  # fmt: skip
    return device_result(figures)


def _full_result() -> dict[str, Any]:
    """A full run's result as the runner puts it together, every stage's keys in it."""
    names = {key for file, function, name in WRITTEN_BY_HEAVY_STAGES[:3]
             for key in literal_keys(file, function, name)}  # fmt: skip
    extra = {name: SAMPLES[declared(FULL_RUN, name).json_type] for name in names}
    extra |= _device_figures()
    return result(stage_figures(decision_ms=17, self_interruptions=0), extra)


def test_every_key_a_stage_writes_is_declared_and_every_declared_key_is_written() -> None:
    written = set(_full_result())
    assert len(written) > 120  # every stage's keys, not a few
    undeclared = set()
    for name in written:
        try:
            declared(FULL_RUN, name)
        except KeyError:
            undeclared.add(name)
    assert undeclared == set()
    # ... and the other way: nothing declared that no stage writes.
    families = {k.name for k in all_keys(FULL_RUN) if k.pattern is not None}
    single = {k.name for k in all_keys(FULL_RUN) if k.pattern is None}
    assert single <= written
    assert all(any(declared(FULL_RUN, w).name == f for w in written) for f in families)


@pytest.mark.parametrize(("file", "function", "variable"), WRITTEN_BY_HEAVY_STAGES)
def test_the_keys_of_the_stages_no_test_runs_here_are_declared(
    file: str, function: str, variable: str | None
) -> None:
    keys = literal_keys(file, function, variable)
    assert len(keys) >= 2  # the literal was found, not an empty one
    stage_keys = {k.name for k in all_keys((PAUSES, LOAD, RUN, *DEVICE_STAGES))}
    assert keys - stage_keys == set()


def test_the_tables_rows_are_the_labelled_keys_in_their_order() -> None:
    figures = _full_result()
    labels = [k.label for k in all_keys(FULL_RUN) if k.label is not None]
    lines = table(figures).splitlines()
    rows = lines[2 : 2 + len(labels)]  # under the header and its rule
    assert [row[: len(label)] for row, label in zip(rows, labels, strict=True)] == labels
    assert lines[2 + len(labels)] == ""  # then the devices' own lines


def test_every_fixed_target_is_the_declared_one() -> None:
    figures = _full_result()
    fixed = {
        k.name: (k.target.kind, k.target.bound)
        for k in all_keys(FULL_RUN)
        if k.target is not None and k.target.bound is not None and k.pattern is None
    }
    reported = {
        name: next((kind, bound) for kind, bound in t.items() if kind != "met")
        for name, t in figures["targets"].items()
    }
    assert {n: b for n, b in reported.items() if n in fixed} == {
        n: b for n, b in fixed.items() if n in reported
    }
    assert set(fixed) - set(reported) == {"audit_max_words_off"}  # no unit audited: no figure
    # The run's own bounds: its patience's window, its greeting trials, each device patience.
    assert reported["end_of_speech_to_user_message_ms"] == ("max", 870)
    assert reported["greeting_barge_in_landed"] == ("min", 1)
    assert reported["peer_class_ratio_name"] == ("max", 0.8)
    assert set(device_targets(_device_figures())) <= set(reported)
    assert set(reported) - set(fixed) == {
        "end_of_speech_to_user_message_ms",
        "greeting_barge_in_landed",
        "device_end_of_speech_to_user_message_p7_ms",
        "device_end_of_speech_to_user_message_p6_ms",
        "peer_class_ratio_name",
        "peer_class_ratio_statement",
    }


def test_sandbox_schema_bench_prints_a_schema_the_full_result_validates_against() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sandbox.cli", "schema", "bench"],
        capture_output=True,
        text=True,
        check=True,
    )
    schema = json.loads(done.stdout)
    assert schema == bench_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    figures = json.loads(json.dumps(_full_result()))
    jsonschema.validate(figures, schema)
    with pytest.raises(jsonschema.ValidationError):  # an undeclared key is refused
        jsonschema.validate(figures | {"undeclared_ms": 1.0}, schema)
    with pytest.raises(jsonschema.ValidationError):  # ... and a figure of the wrong type
        jsonschema.validate(figures | {"heard_cuts": "six"}, schema)
    peak = schema["properties"]["peak_rss_mb"]
    assert peak["x-unit"] == "MB" and peak["x-target"] == {"max": 600}
    assert "target ≤ 600" in peak["description"]
    assert "^peer_class_ratio_[A-Za-z0-9_]+$" in schema["patternProperties"]
