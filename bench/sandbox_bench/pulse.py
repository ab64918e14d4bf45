"""PulseAudio virtual devices: a real speaker and microphone with no sound card (the audio
tests and the bench's outside-the-app timing use them).

    spk       null sink, the tests' speaker: record what it plays with record_speaker()
    micfeed   null sink: play_into_mic() plays a WAV into it
    vmic      the tests' microphone: a remap of micfeed.monitor (a pipe source has no clock)

:func:`ensure` is idempotent and safe across processes: it starts the daemon if none runs
(``pulseaudio -D --exit-idle-time=-1 --disallow-exit``; root works as is, with a warning),
loads the three devices if missing, points this process at them (``PULSE_SINK`` /
``PULSE_SOURCE``), and makes them the system defaults only when it started the daemon
itself, so a developer's desktop audio is left alone. The daemon is left running for the
next test session.

A null sink with no low-latency client renders 2 s ahead, so a stream that connects to it
can wait up to 2 s for its first sample to play. ensure() therefore keeps one low-latency
reader on each null sink's monitor for as long as the test process lives.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import soundfile
from numpy.typing import NDArray

#: Parallel test workers (pytest-xdist) each get devices of their own, so no worker's sound
#: reaches another's recording; a plain run (and the bench) uses the names the README gives.
WORKER_TAG = os.environ.get("PYTEST_XDIST_WORKER", "")
SPEAKER = f"spk{WORKER_TAG}"
MIC_FEED = f"micfeed{WORKER_TAG}"
MIC = f"vmic{WORKER_TAG}"

_LOCK = Path("/tmp/voqalize-sandbox-pulse.lock")
_keepalive: list[subprocess.Popen[bytes]] = []


class PulseUnavailable(RuntimeError):
    """PulseAudio is not installed (``tools/setup-test-env`` installs it)."""


def env() -> dict[str, str]:
    """Environment that points a process's audio at the virtual devices."""
    return {"PULSE_SINK": SPEAKER, "PULSE_SOURCE": MIC}


def ensure() -> None:
    """Make the daemon, the devices and this process's routing to them ready."""
    for tool in ("pulseaudio", "pactl", "parec", "paplay", "pacat"):
        if shutil.which(tool) is None:
            raise PulseUnavailable(f"{tool} is missing: run tools/setup-test-env")
    with _LOCK.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        started = _start_daemon()
        sinks = _names("sinks")
        for sink in (SPEAKER, MIC_FEED):
            if sink not in sinks:
                _pactl("load-module", "module-null-sink", f"sink_name={sink}")
        if MIC not in _names("sources"):
            _pactl(
                "load-module",
                "module-remap-source",
                f"master={MIC_FEED}.monitor",
                f"source_name={MIC}",
            )
        if started:
            _pactl("set-default-sink", SPEAKER)
            _pactl("set-default-source", MIC)
    os.environ.update(env())
    if not _keepalive:
        for sink in (SPEAKER, MIC_FEED):
            _keepalive.append(
                subprocess.Popen(
                    ["parec", "--raw", "--latency-msec=10", "-d", f"{sink}.monitor"],
                    stdout=subprocess.DEVNULL,
                )
            )
        atexit.register(shutdown)
        _wait_for_low_latency()
    if started and "sounddevice" in sys.modules:
        # PortAudio listed devices when sounddevice was imported, before there was a server.
        sd = sys.modules["sounddevice"]
        sd._terminate()
        sd._initialize()


def shutdown() -> None:
    """Stop the readers ensure() started (the daemon stays up)."""
    while _keepalive:
        reader = _keepalive.pop()
        reader.terminate()
        reader.wait()


@contextlib.contextmanager
def echo_path(*, gain_percent: int = 50, latency_ms: int = 60) -> Iterator[None]:
    """A laptop's echo path, in PulseAudio: what the speaker plays reaches the microphone
    ``latency_ms`` later at ``gain_percent`` of its level (a loopback from the speaker's
    monitor into the microphone's feed), until the block ends."""
    module = _pactl(
        "load-module",
        "module-loopback",
        f"source={SPEAKER}.monitor",
        f"sink={MIC_FEED}",
        f"latency_msec={latency_ms}",
        "source_dont_move=true",
        "sink_dont_move=true",
    ).strip()
    try:
        owned = current = ""
        for line in _pactl("list", "sink-inputs").splitlines():
            line = line.strip()
            if line.startswith("Sink Input #"):
                current = line.removeprefix("Sink Input #")
            elif line == f"Owner Module: {module}":
                owned = current
        if owned:
            _pactl("set-sink-input-volume", owned, f"{gain_percent}%")
        yield
    finally:
        _pactl("unload-module", module)


def play_into_mic(wav: Path, *, wait: bool = True) -> subprocess.Popen[bytes]:
    """Play a WAV file into the microphone (``paplay -d micfeed``); waits unless told not to."""
    player = subprocess.Popen(["paplay", "-d", MIC_FEED, str(wav)])
    if wait and player.wait() != 0:
        raise RuntimeError(f"paplay failed on {wav}")
    return player


def speak_into_mic(samples: NDArray[np.int16], rate: int) -> None:
    """Play mono int16 ``samples`` into the microphone (``pacat`` into micfeed); returns once
    they have played."""
    player = subprocess.run(
        ["pacat", "--playback", "-d", MIC_FEED, "--raw", f"--rate={rate}", "--channels=1",
         "--format=s16le", "--latency-msec=20"],
        input=np.ascontiguousarray(samples, "<i2").tobytes(),
        capture_output=True,
        check=False,
    )  # fmt: skip
    if player.returncode != 0:
        raise RuntimeError(f"pacat failed: {player.stderr.decode(errors='replace').strip()}")


@contextlib.contextmanager
def record_speaker(path: Path, rate: int = 22050) -> Iterator[Path]:
    """Record what the speaker plays, mono at ``rate``, into a WAV file at ``path``.

    Recording has begun when the block is entered; the file is complete after it.
    """
    recorder = subprocess.Popen(
        [
            "parecord",
            "-d",
            f"{SPEAKER}.monitor",
            "--latency-msec=10",
            f"--rate={rate}",
            "--channels=1",
            "--format=s16le",
            "--file-format=wav",
            str(path),
        ]
    )
    try:
        deadline = time.monotonic() + 5
        while not (path.exists() and path.stat().st_size > 1024):
            if recorder.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"parecord did not start recording {SPEAKER}.monitor")
            time.sleep(0.01)
        yield path
    finally:
        recorder.terminate()
        recorder.wait()


def read_wav(path: Path) -> tuple[NDArray[np.int16], int]:
    """A mono 16-bit WAV file's samples and rate."""
    samples, rate = soundfile.read(path, dtype="int16")
    return samples, rate


def _start_daemon() -> bool:
    """Start the daemon unless one answers; True if this call started it."""
    if _answers():
        return False
    subprocess.run(
        ["pulseaudio", "-D", "--exit-idle-time=-1", "--disallow-exit"],
        check=True,
        capture_output=True,
    )
    deadline = time.monotonic() + 10
    while not _answers():
        if time.monotonic() > deadline:
            raise RuntimeError("pulseaudio started but does not answer pactl")
        time.sleep(0.05)
    return True


def _wait_for_low_latency() -> None:
    """Wait until the null sinks have played out what they rendered ahead before the readers."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        latencies: dict[str, int] = {}
        name = ""
        for line in _pactl("list", "sinks").splitlines():
            line = line.strip()
            if line.startswith("Name:"):
                name = line.split(":", 1)[1].strip()
            elif line.startswith("Latency:") and name in (SPEAKER, MIC_FEED):
                latencies[name] = int(line.split()[1])
        if len(latencies) == 2 and max(latencies.values()) < 100_000:
            return
        time.sleep(0.05)
    raise RuntimeError("the virtual sinks did not come down to a low latency")


def _answers() -> bool:
    return subprocess.run(["pactl", "info"], capture_output=True).returncode == 0


def _names(kind: str) -> set[str]:
    listing = _pactl("list", "short", kind)
    return {line.split("\t")[1] for line in listing.splitlines() if "\t" in line}


def _pactl(*args: str) -> str:
    return subprocess.run(["pactl", *args], check=True, capture_output=True, text=True).stdout
