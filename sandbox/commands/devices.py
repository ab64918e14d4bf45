"""``sandbox devices``: the microphones and speakers PortAudio can see."""

from __future__ import annotations

import argparse

from sandbox.audio.device_choice import pick_devices
from sandbox.audio.devices import Direction, describe, list_devices

HELP = (
    "list the audio input and output devices (the default ones marked *) and the ones "
    "`sandbox run` picks"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``sandbox devices`` takes no options."""


def run(args: argparse.Namespace) -> int:
    """Print inputs, then outputs (a device is named by its index or part of its name), then
    what ``sandbox run`` with no --mic or --speaker picks, in its banner's words."""
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
    choice = pick_devices(None, None, devices)
    if choice.missing is None:
        print(f"`sandbox run` uses: {choice.summary}.")
    else:
        print(f"`sandbox run` runs typed (no sound): {choice.summary}.")
    return 0
