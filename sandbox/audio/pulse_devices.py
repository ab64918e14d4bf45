"""PulseAudio's own devices, asked of its server with ``pactl``: what PortAudio lists only as
``pulse`` and ``default`` is one of the server's sinks (a speaker) and one of its sources (a
microphone), the server's defaults unless ``PULSE_SINK`` / ``PULSE_SOURCE`` name others for
the process. ``pactl`` missing, or no server answering it, is said in words.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

#: How long the server has to answer one ``pactl`` question.
PACTL_TIMEOUT_S = 5.0
#: The environment variables a PulseAudio client reads for its sink and its source.
SINK_ENV, SOURCE_ENV = "PULSE_SINK", "PULSE_SOURCE"


@dataclass(frozen=True)
class PulseDevices:
    """The server's sinks and sources by name, and which of each a stream here gets."""

    sinks: tuple[str, ...]
    sources: tuple[str, ...]
    #: The sink and source ``pulse``/``default`` use: ``PULSE_SINK``/``PULSE_SOURCE`` if set,
    #: else the server's defaults (None: it has none).
    sink: str | None
    source: str | None
    #: Whether ``sink``/``source`` came from the environment, not the server.
    sink_from_env: bool = False
    source_from_env: bool = False


class PulseUnavailable(Exception):
    """Why PulseAudio's devices cannot be named, in words (``pactl``'s own among them: show
    them as text from outside)."""


class NoPactl(PulseUnavailable):
    """There is no ``pactl`` to ask: no PulseAudio here, or its tools not installed."""


def pulse_devices(env: Mapping[str, str] | None = None) -> PulseDevices:
    """The devices of the server ``env`` points at (this process's environment by default);
    :class:`PulseUnavailable` when there is no ``pactl`` or no server answers."""
    env = dict(os.environ if env is None else env)
    info = _pactl(env, "info")
    sinks = _names(_pactl(env, "list", "short", "sinks"))
    sources = _names(_pactl(env, "list", "short", "sources"))
    defaults = _defaults(info)
    sink_env, source_env = env.get(SINK_ENV) or None, env.get(SOURCE_ENV) or None
    return PulseDevices(
        sinks,
        sources,
        sink_env or defaults.get("Default Sink"),
        source_env or defaults.get("Default Source"),
        sink_from_env=sink_env is not None,
        source_from_env=source_env is not None,
    )


def _pactl(env: dict[str, str], *args: str) -> str:
    """``pactl ARGS``'s output, in the C locale (its labels are parsed, not its translation)."""
    try:
        done = subprocess.run(
            ["pactl", *args],
            env={**env, "LC_ALL": "C"},
            capture_output=True,
            text=True,
            timeout=PACTL_TIMEOUT_S,
        )
    except FileNotFoundError:
        raise NoPactl(
            "pactl is not installed, so PulseAudio's devices cannot be named "
            "(Debian/Ubuntu: sudo apt install pulseaudio-utils)"
        ) from None
    except subprocess.TimeoutExpired:
        raise PulseUnavailable(
            f"the PulseAudio server did not answer pactl within {PACTL_TIMEOUT_S:g} s"
        ) from None
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["no reason given"])[0]
        raise PulseUnavailable(f"no PulseAudio server answers ({why})")
    return done.stdout


def _names(listing: str) -> tuple[str, ...]:
    """The device names of ``pactl list short …`` (index, name, driver, … by tabs)."""
    rows = (line.split("\t") for line in listing.splitlines())
    return tuple(row[1] for row in rows if len(row) > 1)


def _defaults(info: str) -> dict[str, str]:
    """``pactl info``'s ``Label: value`` lines, by label."""
    pairs = (line.partition(": ") for line in info.splitlines())
    return {label.strip(): value.strip() for label, sep, value in pairs if sep}
