"""The fuzz targets under hypothesis, a few thousand inputs each, and every input the
fuzzer ever found escaping (tests/fuzz_cases/), run through its target again.

The benchmark run (``python -m sandbox_fuzz``, atheris, 100,000 inputs a target) drives
the same target functions; here they guard CI without atheris.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbox.check import rules
from sandbox_fuzz.guard import Hang, InvariantBroken, guarded
from sandbox_fuzz.targets import TARGETS

CASES = Path(__file__).parent / "fuzz_cases"
#: Inputs per target in CI; the benchmark run makes 100,000.
EXAMPLES = 2000

_ci = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
_inputs = st.binary(max_size=2048)


@pytest.mark.parametrize(
    "case", sorted(CASES.glob("*/*.bin")), ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_an_input_that_once_escaped_no_longer_does(case: Path) -> None:
    guarded(TARGETS[case.parent.name].run, case.read_bytes())


def test_every_kept_case_names_a_target() -> None:
    assert {p.name for p in CASES.iterdir() if p.is_dir()} <= set(TARGETS)


@pytest.mark.parametrize("name", TARGETS)
@_ci
@given(_inputs)
def test_target(name: str, data: bytes) -> None:
    guarded(TARGETS[name].run, data)


def test_a_hang_is_an_escape() -> None:
    with pytest.raises(Hang, match=r"more than 0\.2 s"):
        guarded(lambda _: time.sleep(5), b"", seconds=0.2)


def test_a_broken_invariant_quotes_the_rule_it_breaks() -> None:
    broken = InvariantBroken(rules.ONE_RESPONSE, "Request 3 got 2 Responses")
    assert str(broken) == (
        "Request 3 got 2 Responses — breaks: Exactly one Response per Request, matching on "
        'request_id. (the wire contract (docs/wire.md), section "Invariants")'
    )


def test_the_benchmark_run_reports_inputs_and_escapes_per_target(tmp_path: Path) -> None:
    pytest.importorskip("atheris")  # an optional extra: CI runs the targets without it
    done = subprocess.run(
        [sys.executable, "-m", "sandbox_fuzz", "relay", "--runs", "300", "--json",
         "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [(t["target"], t["inputs"], t["escapes"]) for t in report["targets"]] == [
        ("relay", 300, 0)
    ]
