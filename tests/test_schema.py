"""The committed generated code matches the schema of record, and the schema lints clean."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from sandbox.wire import schema_gen

REPO = Path(__file__).resolve().parents[1]


def test_generated_code_matches_schema() -> None:
    fresh = schema_gen.generate()
    for name, data in fresh.items():
        committed = (schema_gen.OUT_DIR / name).read_bytes()
        assert committed == data, (
            f"sdk/sandbox/wire/{name} is stale: run `python -m sandbox.wire.schema_gen`"
        )


def _buf() -> str:
    local = REPO / ".tools" / "node_modules" / ".bin" / "buf"
    if local.exists():
        return str(local)
    found = shutil.which("buf")
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail("buf is not installed: run tools/setup-test-env")
    pytest.skip("buf is not installed: run tools/setup-test-env")


def test_buf_lint_with_comments() -> None:
    result = subprocess.run([_buf(), "lint"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_language_has_an_iso_code() -> None:
    from sandbox.wire import pb
    from sandbox.wire.catalog import ISO_BY_LANGUAGE

    named = {v for v in pb.Language.values() if v != pb.LANGUAGE_UNSPECIFIED}
    assert named == set(ISO_BY_LANGUAGE)
    assert ISO_BY_LANGUAGE[pb.LANGUAGE_OR] == "or"
    assert ISO_BY_LANGUAGE[pb.LANGUAGE_BHO] == "bho"  # 639-3 where no two-letter code exists


def test_turn_step_is_arm_16_and_finalize_tag_3_reserved() -> None:
    from sandbox.wire import pb

    assert pb.Envelope.DESCRIPTOR.fields_by_name["turn_step"].number == 16
    assert 3 not in pb.Finalize.DESCRIPTOR.fields_by_number
