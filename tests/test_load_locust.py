"""The Locust user class, as a user runs it: a master and one worker, two processes of their
own (gevent patches the standard library in them, never in pytest's), 20 users for 20 s
against the echo brain, the statistics read back from the master's JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import sandbox.load
from sandbox.load.echo_process import echo_brain, free_port
from sandbox.paths import HOME_ENV

RUN_S = 20
#: The user class's file, named without importing it: importing locust patches the process.
USER_CLASS = Path(sandbox.load.__file__).with_name("locust.py")


def _locust(*args: str) -> list[str]:
    return [sys.executable, "-m", "locust", "-f", str(USER_CLASS), *args]


def test_master_and_worker_report_latencies_and_no_failures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))  # the brain's, and the callers' keys
    port = free_port()
    with echo_brain() as url:
        worker = subprocess.Popen(
            _locust("--worker", "--master-host", "127.0.0.1", "--master-port", str(port)),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            master = subprocess.run(
                _locust(
                    "--master", "--master-bind-port", str(port), "--expect-workers", "1",
                    "--headless", "-u", "20", "-r", "20", "-t", f"{RUN_S}s", "--host", url,
                    "--json", "--only-summary",
                ),
                    capture_output=True,
                text=True,
                timeout=RUN_S + 60,
            )  # fmt: skip
        finally:
            _, worker_err = worker.communicate(timeout=30)
    assert master.returncode == 0, master.stderr[-2000:]
    assert worker.returncode == 0, worker_err[-2000:]
    stats: dict[str, dict[str, Any]] = {e["name"]: e for e in json.loads(master.stdout)}
    assert set(stats) == {"first chunk", "Finalize", "wire rules", "call"}
    calls = stats["call"]["num_requests"]
    assert calls >= 20  # every user placed at least one call
    assert stats["wire rules"]["num_requests"] == calls
    assert stats["first chunk"]["num_requests"] >= 4 * calls - 20  # calls cut off at the end
    assert stats["Finalize"]["num_requests"] > 0
    assert sum(e["num_failures"] for e in stats.values()) == 0
    fc = stats["first chunk"]
    assert 0 < fc["total_response_time"] / fc["num_requests"] < 1000
