"""The peer, Pipecat run fully locally on the same two models (its ``peer_live.py``), set up
in its own virtual environment and run on the same virtual devices as the app.

The peer is not part of this repository: ``$SANDBOX_PEER_DIR`` names the folder holding its
``peer_live.py`` and ``setup.sh``.

Setup follows the peer's own recipe: ``setup.sh`` (pinned Pipecat, faster-whisper, Piper and
the two model packages) into a venv kept between runs, plus PyAudio for its
``LocalAudioTransport`` (built against Debian's ``portaudio19-dev``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from sandbox.errors import UserError
from sandbox_bench import pulse
from sandbox_bench.child_memory import PeakWatch, reap
from sandbox_bench.figures import Progress

#: The environment variable naming the peer's folder, which lives outside this repository.
PEER_DIR_ENV = "SANDBOX_PEER_DIR"
#: The peer's venv, kept between runs (setup takes a minute or two).
VENV = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "voqalize-peer-venv"
PYAUDIO = "pyaudio==0.2.14"
#: The peer's best configuration here (a 0.6 s speech timeout), and its default.
BEST, DEFAULT = "speech-timeout", "smart-turn"
#: Model loading and pipeline start.
READY_S = 120.0
#: How long the peer may take to stop once asked before it is killed.
QUIT_S = 10.0


def peer_dir() -> Path:
    """The peer's folder, ``$SANDBOX_PEER_DIR``; refused in words when unset or not the peer."""
    given = os.environ.get(PEER_DIR_ENV, "")
    if not given:
        raise UserError(
            f"--peer times Pipecat run fully locally, which is not part of this repository: "
            f"set {PEER_DIR_ENV} to the folder holding the peer's peer_live.py and setup.sh, "
            "then run again"
        )
    found = Path(given)
    if not (found / "peer_live.py").is_file():
        raise UserError(
            f"the peer is not at {found} (no peer_live.py): set {PEER_DIR_ENV} to the folder "
            "holding the peer's peer_live.py and setup.sh"
        )
    return found


def _works(python: Path, module: str) -> bool:
    done = subprocess.run([str(python), "-c", f"import {module}"], capture_output=True)
    return python.exists() and done.returncode == 0


def ensure_peer(progress: Progress) -> Path:
    """The peer venv's python, set up first if needed."""
    folder = peer_dir()
    python = VENV / "bin" / "python"
    if not (python.exists() and _works(python, "pipecat")):
        progress(f"  setting up the peer in {VENV} (setup.sh: Pipecat 1.14.0 and its models)")
        done = subprocess.run(
            ["bash", str(folder / "setup.sh")],
            env={**os.environ, "VENV": str(VENV)},
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise UserError("the peer's setup.sh failed: " + " / ".join(tail))
    if not _works(python, "pyaudio"):
        if not Path("/usr/include/portaudio.h").exists():
            if shutil.which("apt-get") is None or os.geteuid() != 0:
                raise UserError(
                    "the peer needs PyAudio, built against portaudio19-dev: "
                    "sudo apt-get install -y portaudio19-dev, then run again"
                )
            progress("  installing portaudio19-dev for the peer's PyAudio")
            subprocess.run(
                ["apt-get", "install", "-y", "-q", "portaudio19-dev"],
                capture_output=True,
                check=False,
            )
        progress(f"  installing {PYAUDIO} into the peer's venv")
        done = subprocess.run(
            [str(VENV / "bin" / "pip"), "install", "-q", PYAUDIO], capture_output=True, text=True
        )
        if done.returncode != 0:
            raise UserError(f"cannot install {PYAUDIO} for the peer: {done.stderr.strip()[-300:]}")
    return python


@dataclass
class PeerEvents:
    """The peer's event log (one JSON object a line, ``time.monotonic()`` seconds)."""

    path: Path
    #: The peer's peak resident memory over its whole run (MB), known once it has exited.
    peak_rss_mb: float | None = None

    def _events(self) -> list[dict[str, object]]:
        if not self.path.exists():
            return []
        lines = self.path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    @property
    def ready(self) -> bool:
        """Whether the pipeline has started."""
        return any(e.get("event") == "ready" for e in self._events())

    def turn_after(self, t: float) -> tuple[float, str | None] | None:
        """When the first turn after ``t`` reached the peer's fixed "LLM", and the caller's
        words it was asked to answer (its context's last user message; None: not logged)."""
        for event in self._events():
            at = event.get("t")
            if event.get("event") == "LLMContextIn" and isinstance(at, int | float) and at > t:
                return float(at), _last_user_text(event.get("messages"))
        return None


def _last_user_text(messages: object) -> str | None:
    """The text of the last user message of a logged LLM context (OpenAI's shape: content a
    string, or a list of text parts); None when there is none."""
    if not isinstance(messages, list):
        return None
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                parts = [p.get("text") for p in content if isinstance(p, dict)]
                return " ".join(p for p in parts if isinstance(p, str))
            return None
    return None


@contextlib.asynccontextmanager
async def running_peer(python: Path, strategy: str, events: Path) -> AsyncIterator[PeerEvents]:
    """``peer_live.py --stop-strategy STRATEGY`` on the virtual devices, until it is ready."""
    log = PeerEvents(events)
    events.unlink(missing_ok=True)
    peer = subprocess.Popen(
        [str(python), str(peer_dir() / "peer_live.py"), "--stop-strategy", strategy,
         "--events", str(events)],
        env={**os.environ, **pulse.env()},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    watch = PeakWatch(peer.pid)
    try:
        waited = 0.0
        while not log.ready:
            if peer.poll() is not None:
                raise UserError(f"the peer exited with {peer.returncode} before it was ready")
            if waited > READY_S:
                raise UserError(f"the peer was not ready after {READY_S:.0f} s")
            await asyncio.sleep(0.2)
            waited += 0.2
        yield log
    finally:
        peer.terminate()
        log.peak_rss_mb = await reap(peer, QUIT_S, watch)
