"""``sandbox devices``: the microphones and speakers PortAudio can see."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from sandbox.audio.device_choice import pick_devices
from sandbox.audio.devices import Device, Direction, describe, list_devices
from sandbox.audio.pulse_devices import (
    SINK_ENV,
    SOURCE_ENV,
    NoPactl,
    PulseDevices,
    PulseUnavailable,
    pulse_devices,
)
from sandbox.record.plain_text import visible

HELP = (
    "list the audio input and output devices (the default ones marked *), PulseAudio's sinks "
    "and sources behind its devices, and the ones `sandbox run` picks"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``sandbox devices`` takes no options."""


def run(args: argparse.Namespace) -> int:
    """Print inputs, then outputs (a device is named by its index or part of its name), then
    PulseAudio's sinks and sources where PortAudio goes through it, then what ``sandbox
    run`` with no --mic or --speaker picks, in its banner's words."""
    devices = list_devices()
    directions: tuple[tuple[str, Direction], ...] = (("Inputs", "input"), ("Outputs", "output"))
    for title, direction in directions:
        usable = [d for d in devices if d.channels(direction) > 0]
        print(f"{title}:")
        for device in usable:
            print(("*" if device.is_default(direction) else " ") + describe(device))
        if not usable:
            print("    (none)")
    if not devices:
        print("No audio devices: typed mode still works without audio.")
    else:
        print("Pick one by its index or by part of its name; * marks the default.")
    for line in _pulse(devices):
        print(line)
    choice = pick_devices(None, None, devices)
    if choice.missing is None:
        print(f"`sandbox run` uses: {choice.summary}.")
    else:
        print(f"`sandbox run` runs typed (no sound): {choice.summary}.")
    return 0


def _pulse(devices: Sequence[Device]) -> list[str]:
    """PulseAudio's devices in words; nothing where PortAudio lists no ``pulse`` device and
    there is no ``pactl`` (no PulseAudio here: a Mac, say)."""
    try:
        found = pulse_devices()
    except PulseUnavailable as why:
        if isinstance(why, NoPactl) and not any(d.name == "pulse" for d in devices):
            return []
        return [f"PulseAudio: {visible(str(why))}."]
    return _pulse_lines(found)


def _pulse_lines(devices: PulseDevices) -> list[str]:
    """What ``sandbox devices`` says of them: each sink and source, the one a stream here
    gets marked ``*``, and how to pick another."""
    lines = []
    kinds: Sequence[tuple[str, tuple[str, ...], str | None, bool, str]] = (
        ("sinks (speakers)", devices.sinks, devices.sink, devices.sink_from_env, SINK_ENV),
        ("sources (microphones)", devices.sources, devices.source, devices.source_from_env,
         SOURCE_ENV),
    )  # fmt: skip
    for title, names, picked, from_env, variable in kinds:
        lines.append(f"PulseAudio {title}:")
        lines += [f"{'*' if name == picked else ' '}    {visible(name)}" for name in names]
        if not names:
            lines.append("    (none)")
        if picked is None:
            lines.append("    (the server has no default)")
        elif from_env:
            lines.append(f"    {variable}={visible(picked)} picks it for this shell")
        if picked is not None and picked not in names:
            lines.append(f"    {visible(picked)}, the one picked, is not on the server")
    lines.append(
        'PortAudio\'s "pulse" and "default" devices play to the sink and record from the '
        "source marked *. To pick others: PULSE_SINK=NAME PULSE_SOURCE=NAME sandbox run, or "
        "pactl set-default-sink NAME and pactl set-default-source NAME for every program."
    )
    return lines
