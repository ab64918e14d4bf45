"""The fuzz targets under hypothesis, a few thousand inputs each, and every input the
fuzzer ever found escaping (tests/fuzz_cases/), run through its target again.

The benchmark run (``python -m sandbox.fuzz``, atheris, 100,000 inputs a target) drives
the same target functions; here they guard CI without atheris.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbox.fuzz.guard import guarded
from sandbox.fuzz.targets import TARGETS

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
