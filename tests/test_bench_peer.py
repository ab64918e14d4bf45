"""sandbox bench --peer: the peer lives outside the repository, so only $SANDBOX_PEER_DIR finds
it, and a missing one is refused in words before any stage runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_rig import sandbox_cli


def test_bench_peer_with_no_peer_dir_says_what_to_set_and_exits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SANDBOX_PEER_DIR", raising=False)
    ran = sandbox_cli(tmp_path, "bench", "--peer", timeout=60)
    assert ran.returncode == 1
    assert "Traceback" not in ran.stderr
    assert "set SANDBOX_PEER_DIR to the folder holding the peer's peer_live.py" in ran.stderr
    assert "Pipecat run fully locally" in ran.stderr
    assert ran.stdout == ""  # refused before the first stage, which would print progress


def test_bench_peer_dir_without_the_peer_is_named_and_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "not-the-peer"
    empty.mkdir()
    monkeypatch.setenv("SANDBOX_PEER_DIR", str(empty))
    ran = sandbox_cli(tmp_path, "bench", "--devices", "--peer", timeout=60)
    assert ran.returncode == 1
    assert "Traceback" not in ran.stderr
    assert f"the peer is not at {empty} (no peer_live.py)" in ran.stderr
