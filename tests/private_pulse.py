"""A PulseAudio server of the test's own, whose devices a test may unload under a running app.

The shared server of :mod:`sandbox_bench.pulse` serves other tests and benchmarks, and moves
a stream whose device is unloaded onto another of its devices. On this one the test decides
every device there is: unload the only speaker (or the only source) and the app's stream has
nowhere to go, as when a headset is unplugged from a machine with no other.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

START_S = 10.0


@dataclass
class PrivatePulse:
    """A running private server: its socket, and the modules loaded on it by name."""

    socket: Path
    modules: dict[str, str] = field(default_factory=dict)

    def env(self) -> dict[str, str]:
        """What points a process (through ALSA's pulse plugin) at this server."""
        return {"PULSE_SERVER": f"unix:{self.socket}"}

    def pactl(self, *args: str) -> str:
        """``pactl ARGS`` on this server."""
        done = subprocess.run(
            ["pactl", *args],
            env={**os.environ, **self.env()},
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    def load(self, name: str, module: str, *args: str) -> None:
        """Load ``module`` with ``args``; ``name`` is how :meth:`unload` finds it."""
        self.modules[name] = self.pactl("load-module", module, *args).strip()

    def unload(self, name: str) -> None:
        """Take the device away, as unplugging it would."""
        self.pactl("unload-module", self.modules.pop(name))


@contextlib.contextmanager
def private_pulse(folder: Path) -> Iterator[PrivatePulse]:
    """Start a server with no devices in ``folder``; stop it when the block ends."""
    socket = folder / "native"
    env = {**os.environ, "PULSE_RUNTIME_PATH": str(folder), "PULSE_STATE_PATH": str(folder)}
    protocol = f"module-native-protocol-unix socket={socket} auth-anonymous=1"
    server = subprocess.Popen(
        ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit",
         "--use-pid-file=no", "-L", protocol],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    pulse = PrivatePulse(socket)
    try:
        deadline = time.monotonic() + START_S
        while True:
            with contextlib.suppress(subprocess.CalledProcessError):
                pulse.pactl("info")
                break
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("a private pulseaudio server did not start")
            time.sleep(0.05)
        yield pulse
    finally:
        server.terminate()
        server.wait(10)
