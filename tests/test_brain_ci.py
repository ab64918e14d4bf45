"""A brain's CI needs no system package: ``sandbox test`` and pytest (the plugin, the
example's conftest) run the example brain's caller scripts on simulated audio with PortAudio,
the models and the app's screen unimportable, as on a runner with no apt step."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from test_layers import SPEECH_STACK

from sandbox.paths import HOME_ENV

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "brain"
#: Loaded before anything else in each process: every part of the speech stack, and
#: PortAudio's binding, fails to import, as it would with no libportaudio2 on the machine.
SITECUSTOMIZE = f"""
import sys
for name in {sorted(SPEECH_STACK)!r}:
    sys.modules[name] = None
"""


def _without_speech_stack(tmp_path: Path) -> dict[str, str]:
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return {**os.environ, "PYTHONPATH": str(blocker), HOME_ENV: str(tmp_path / "home")}


def test_the_examples_scripts_pass_with_no_speech_stack_and_no_portaudio(tmp_path: Path) -> None:
    workflow = (EXAMPLE / ".github" / "workflows" / "voice.yml").read_text()
    assert "apt-get" not in workflow and "pip install './voqalize-sandbox[test]'" in workflow
    folder = tmp_path / "brain"
    shutil.copytree(EXAMPLE, folder)
    env = _without_speech_stack(tmp_path)
    blocked = subprocess.run(
        [sys.executable, "-c", "import sounddevice"], env=env, capture_output=True, text=True
    )
    assert blocked.returncode != 0 and "ModuleNotFoundError" in blocked.stderr  # it holds
    cli = [sys.executable, "-m", "sandbox.cli", "test", str(folder), "--brain", "echo"]
    tested = subprocess.run(cli, env=env, capture_output=True, text=True, timeout=300)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "2 passed, 0 failed, 0 broken" in tested.stdout
    # Without the plugins this repository's dev install adds (a brain's CI has only the
    # `test` extra): the snapshot plugin would load the app's screen library itself.
    others = ["-p", "no:textual-snapshot", "-p", "no:locust", "-p", "no:benchmark"]
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *others, str(folder)]
    collected = subprocess.run(
        pytest, env=env, capture_output=True, text=True, timeout=300, cwd=folder
    )
    assert collected.returncode == 0, collected.stdout + collected.stderr
    assert "2 passed" in collected.stdout
    assert "PytestDeprecationWarning" not in collected.stdout + collected.stderr
