"""The keys of the bench's modes run on their own, declared once
(``bench/sandbox_bench/mode_keys.py``, ``soak_keys.py``, ``hostile_keys.py``): every key each
mode writes is declared, no name is declared twice in one result, each mode's targets are its
own stages' declared ones, and ``sandbox schema bench-MODE`` is a JSON Schema its result
validates against."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import jsonschema
import pytest
from written_keys import assigned_keys, literal_keys

from sandbox.commands.schema import SCHEMAS
from sandbox.line.profile import PROFILES
from sandbox.replay.audit import audit_totals
from sandbox_bench.bench_key import Mode, Stage, all_keys, declared
from sandbox_bench.device_keys import AUDIT
from sandbox_bench.figures import targets_json
from sandbox_bench.hostile import BrainCall, hostile_table
from sandbox_bench.languages import languages_figures, languages_table
from sandbox_bench.lines import lines_figures, lines_table
from sandbox_bench.mode_keys import HOSTILE_MODE, MODES, REDRIVE_MODE
from sandbox_bench.outside import DeviceRun, DeviceTurn
from sandbox_bench.outside_floor import FloorRun, FloorTrial
from sandbox_bench.redrive import FalseAlarmFigures, RedriveFigures, redrive_table
from sandbox_bench.run_keys import FULL_RUN
from sandbox_bench.sessions import SessionFigures, sessions_table
from sandbox_bench.soak import Sample, SoakFigures, Turn, soak_table

#: The hostile run's keys, read off the code that writes them: the fuzzing's dicts, then
#: what ``measure_hostile`` sets one by one (its calls need processes of their own).
HOSTILE_WRITTEN = (
    literal_keys("bench/tts_fuzz.py", "tts_fuzz", None),
    literal_keys("fuzz/printers.py", "printer_escapes", None),
    assigned_keys("bench/hostile.py", "measure_hostile", "figures"),
)
#: The names two results declare, each a figure of its own there: the full run's peak
#: memory (600 MB) is the bench's process, the hostile run's (400 MB) a call's; ``turns``
#: is a count in the full run and the re-drive, the soak's turns themselves; ``call_s`` is
#: the re-drive's and the soak's call and the time each hostile brain is met; ``barge_ins``
#: are the full run's objections that landed, the soak's Interruptions sent; the full
#: run's ``targets`` say whether each was met, a mode's only its bound.
DECLARED_BY_EACH_RESULT = {"barge_ins", "call_s", "peak_rss_mb", "targets", "turns"}


def _sessions() -> dict[str, Any]:
    return asdict(SessionFigures(30.0, 412.0, 1.8, 12.5, 3.1, 1.4, 9.2, 2400))


def _redrive() -> dict[str, Any]:
    speed = RedriveFigures(300.2, 33, 9.8, 30.6, 0, 4.1, 52.7)
    kinds = {"sim": {"sessions": 1, "runs": 3, "false": 0}}
    alarms = FalseAlarmFigures(5, 15, 0, 1, 12.0, kinds, [])
    audit: dict[str, object] = {"audit_sessions": 0, **audit_totals(()), "audit_doubted": []}
    return {**asdict(speed), **asdict(alarms), **audit}  # as measure_redrive_bench puts it


def _soak() -> dict[str, Any]:
    sample = Sample(130.0, 420.0, 300.0, 100.0, 20.0, 2, 0, 12, 9, True)
    turn = Turn(131.5, 40, 310)
    figures = SoakFigures(
        "sim", 600.1, 120.0, 60, 12, 8, 6, 419.0, 421.5, 0.4, 40, 0.3, 0.2, 0.1, 0.0,
        0.3, 0.0, 0.0, 0.5, 0.6, 4, 0.1, 12, 12, 40.0, 42.0, 2.0, 300.0, 310.0, 10.0,
        [sample], [turn],
    )  # fmt: skip
    return figures.as_json()


def _hostile() -> dict[str, Any]:
    call = BrainCall(74.1, 13.9, 143, False, 0.8, 124.0, 256.0, "completed", {"dead_unit": 9})
    tts = {"tts_examples": 50, "tts_dead_threads": 0, "tts_repaired": 3, "tts_skipped": 1,
           "tts_clauses": 80, "tts_broken": 0, "tts_stalls": 0}  # fmt: skip
    return {
        **tts,
        "printer_examples": 50,
        "printer_escapes": 0,
        "brains": {"garbage": call.as_json(), "silent": call.as_json()},
        "call_s": 10.0,
        "peak_rss_mb": 74.1,
        "report_mb": 0.12,
        "hang_up_exit_s": 0.8,
        "seconds": 31.0,
        "quick": True,
    }


def _lines() -> dict[str, Any]:
    def turn(ms: float, heard: str) -> DeviceTurn:
        return DeviceTurn(ms, ms - 300, "wh", "What time do you open?", "en-us", "final", heard)

    trials = (
        FloorTrial("mm-hmm", "en-us", False, False, 40.0, None, None),
        FloorTrial("Wait, stop.", "en-us", True, True, None, 190.0, 20.0),
    )
    measured = {
        name: (
            DeviceRun(f"app on {name}", 7, (turn(500 + 10 * i, "What time do you open?"),), ()),
            FloorRun(trials, 0),
        )
        for i, name in enumerate(PROFILES)
    }
    return lines_figures(1, measured, {name: 0.014 * i for i, name in enumerate(PROFILES)})


def _languages() -> dict[str, Any]:
    row = {
        "recognizer": "Whisper tiny.en", "recognizer_load_s": 0.3, "recognizer_rss_mb": 81.5,
        "turns": 1, "unanswered": 0, "word_error_rate": 0.1, "first_audio_ms": 800.0,
        "first_audio_max_ms": 900, "close_reasons": {"final": 1, "confident": 0, "silence": 0},
        "onset_to_silence_ms": 300.0,
        "barge_ins_landed_fraction": 1.0, "backchannels_answered_fraction": 0.0,
        "backchannels_went_on_fraction": 1.0, "cuts": 2, "cuts_exact_fraction": 1.0,
        "cuts_max_words_off": 0, "cuts_checked_by": "by hand", "app_peak_rss_mb": 470.0,
        "heard": [],
    }  # fmt: skip
    slower = {**row, "first_audio_ms": 900.0, "cuts_exact_fraction": 0.5}
    return languages_figures(1, {"en": row, "de": slower}, 60.0)


#: Each mode's figures built by hand as its code builds them, and the table it prints.
BUILT: dict[str, tuple[Callable[[], dict[str, Any]], Callable[[dict[str, Any]], str]]] = {
    "sessions": (_sessions, sessions_table),
    "redrive": (_redrive, redrive_table),
    "soak": (_soak, soak_table),
    "hostile": (_hostile, hostile_table),
    "lines": (_lines, lines_table),
    "languages": (_languages, languages_table),
}
#: What each mode's JSON said its targets were before they were declared, to the byte.
TARGETS_JSON = {
    "sessions": '{"replay_open_ms": {"bound": "max", "value": 1000}, "recording_cpu_percent": '
    '{"bound": "max", "value": 5}, "disk_mb_per_minute": {"bound": "max", "value": 2}, '
    '"html_mb_per_10_minutes": {"bound": "max", "value": 15}}',
    "redrive": '{"speedup": {"bound": "min", "value": 20}, "redrive_false_changes": '
    '{"bound": "max", "value": 0}}',
    "soak": '{"rss_slope_mb_per_10min": {"bound": "max", "value": 1.0}, '
    '"quiet_rss_trend_mb_per_10min": {"bound": "max", "value": 1.0}, "in_flight_growth": '
    '{"bound": "max", "value": 0}, "first_chunk_drift_ms": {"bound": "max", "value": 50}}',
    "hostile": '{"tts_dead_threads": {"bound": "max", "value": 0}, "printer_escapes": '
    '{"bound": "max", "value": 0}, "peak_rss_mb": {"bound": "max", "value": 400}, '
    '"report_mb": {"bound": "max", "value": 5}, "hang_up_exit_s": {"bound": "max", "value": 2}}',
    "lines": '{"pstn_first_audio_ratio": {"bound": "max", "value": 1.1}, '
    '"pstn_onset_to_silence_net_ms": {"bound": "max", "value": 250}, '
    '"pstn_backchannels_answered": {"bound": "max", "value": 0}, '
    '"pstn_false_cutoff_fraction": {"bound": "max", "value": 0.05}}',
    "languages": '{"languages_first_audio_ratio_max": {"bound": "max", "value": 1.15}, '
    '"languages_cuts_exact_fraction_min": {"bound": "min", "value": 1.0}}',
}


def _result(mode: Mode) -> dict[str, Any]:
    """The mode's JSON result: its figures, then its targets (``sandbox bench --MODE``)."""
    figures = BUILT[mode.flag][0]()
    figures["targets"] = targets_json(mode.bounds())
    return figures


def _ids(mode: Mode) -> str:
    return mode.flag


def test_every_mode_is_built_here() -> None:
    assert [m.flag for m in MODES] == list(BUILT) == list(TARGETS_JSON)


@pytest.mark.parametrize("mode", MODES, ids=_ids)
def test_every_key_a_mode_writes_is_declared_and_every_declared_key_is_written(
    mode: Mode,
) -> None:
    written = set(_result(mode))
    undeclared = set()
    for name in written:
        try:
            declared(mode.stages, name)
        except KeyError:
            undeclared.add(name)
    assert undeclared == set()
    assert {k.name for k in all_keys(mode.stages)} == written  # and nothing more is declared


def test_the_hostile_keys_read_off_its_code_are_the_ones_built_here() -> None:
    assert all(len(keys) >= 2 for keys in HOSTILE_WRITTEN)  # each was found, not an empty one
    assert set().union(*HOSTILE_WRITTEN) == set(_hostile())


def test_the_redrive_holds_the_audit_as_the_audit_writes_it() -> None:
    audit = literal_keys("bench/audit.py", "audit_stored_sessions", None)
    written = audit | set(audit_totals(()))  # its ** spread
    assert written == {k.name for k in AUDIT.keys} and AUDIT in REDRIVE_MODE.shared
    assert written <= set(_redrive())


@pytest.mark.parametrize(
    "stages", [FULL_RUN, *(m.stages for m in MODES)], ids=["full", *(m.flag for m in MODES)]
)
def test_no_name_is_declared_twice_in_one_result(stages: tuple[Stage, ...]) -> None:
    names = [k.name for k in all_keys(stages)]
    assert len(names) == len(set(names))


def test_a_name_declared_twice_is_a_different_figure_in_each_result() -> None:
    stages = {id(s): s for s in (*FULL_RUN, *(s for m in MODES for s in m.stages))}
    counts = Counter(k.name for k in all_keys(tuple(stages.values())))
    assert {name for name, count in counts.items() if count > 1} == DECLARED_BY_EACH_RESULT
    hostile = declared(HOSTILE_MODE.stages, "peak_rss_mb").target
    full = declared(FULL_RUN, "peak_rss_mb").target
    assert hostile is not None and hostile.bound == 400
    assert full is not None and full.bound == 600


@pytest.mark.parametrize("mode", MODES, ids=_ids)
def test_each_modes_targets_are_its_own_stages_declared_ones(mode: Mode) -> None:
    bounds = mode.bounds()
    assert bounds == {
        k.name: (k.target.kind, k.target.bound)
        for k in all_keys(mode.own)
        if k.target is not None and k.target.bound is not None
    }
    assert json.dumps(targets_json(bounds), ensure_ascii=False) == TARGETS_JSON[mode.flag]
    assert "audit_max_words_off" not in bounds  # a shared stage's target: the full run's
    figures = _result(mode)
    lines = BUILT[mode.flag][1](figures).splitlines()
    for name, (kind, bound) in bounds.items():
        sign = "≤" if kind == "max" else "≥"
        assert any(line.startswith(f"  {name} ") and f"target {sign} {bound:g}" in line
                   for line in lines), name  # fmt: skip


@pytest.mark.parametrize("mode", MODES, ids=_ids)
def test_each_modes_schema_validates_its_result_and_refuses_an_undeclared_key(
    mode: Mode,
) -> None:
    schema = SCHEMAS[f"bench-{mode.flag}"]()
    jsonschema.Draft202012Validator.check_schema(schema)
    figures = json.loads(json.dumps(_result(mode)))
    jsonschema.validate(figures, schema)
    with pytest.raises(jsonschema.ValidationError):  # an undeclared key is refused
        jsonschema.validate(figures | {"undeclared_ms": 1.0}, schema)
    with pytest.raises(jsonschema.ValidationError):  # ... and a figure of the wrong type
        jsonschema.validate(figures | {"targets": "six"}, schema)
    assert schema["title"] == f"sandbox bench {mode.usage} --json"


def test_sandbox_schema_prints_the_hostile_runs_own_memory_target() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sandbox.cli", "schema", "bench-hostile"],
        capture_output=True,
        text=True,
        check=True,
    )
    schema = json.loads(done.stdout)
    assert schema == SCHEMAS["bench-hostile"]()
    peak = schema["properties"]["peak_rss_mb"]
    assert peak["x-target"] == {"max": 400} and peak["x-stage"] == "hostile_calls"
    assert "target ≤ 400" in peak["description"]
    soak = SCHEMAS["bench-soak"]()["properties"]
    assert soak["rss_slope_mb_per_10min"]["x-unit"] == "MB/10min"
