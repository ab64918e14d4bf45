"""Sound devices through PortAudio (``sounddevice``): find them, pick one, explain what is wrong.

PortAudio lists devices once, when ``sounddevice`` is imported; a device plugged in (or a
sound server started) later is seen by the next process.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Literal

from sandbox.audio.alsa_quiet import quiet_alsa
from sandbox.errors import UserError

Direction = Literal["input", "output"]

_NO_AUDIO_HINT = "Typed mode works without audio: you can still type to the brain."


@dataclass(frozen=True)
class Device:
    """One PortAudio device."""

    index: int
    name: str
    hostapi: str
    inputs: int
    outputs: int
    default_samplerate: float
    default_input: bool
    default_output: bool

    def channels(self, direction: Direction) -> int:
        """How many channels it has that way."""
        return self.inputs if direction == "input" else self.outputs

    def is_default(self, direction: Direction) -> bool:
        """Whether it is the system's default that way."""
        return self.default_input if direction == "input" else self.default_output


def require_sounddevice() -> ModuleType:
    """The ``sounddevice`` module; a missing PortAudio library becomes words with the fix."""
    quiet_alsa()
    try:
        sounddevice: ModuleType = importlib.import_module("sounddevice")
    except OSError as exc:
        raise UserError(
            f"the PortAudio library is missing ({exc}), so there is no microphone or speaker.\n"
            "  Debian/Ubuntu: sudo apt install libportaudio2\n"
            "  macOS: pip install --force-reinstall sounddevice (its wheel bundles PortAudio)\n"
            + _NO_AUDIO_HINT
        ) from None
    return sounddevice


def list_devices() -> list[Device]:
    """Every device PortAudio knows, defaults marked."""
    sd = require_sounddevice()
    hostapis = [str(api["name"]) for api in sd.query_hostapis()]
    default_in, default_out = (int(i) for i in sd.default.device)
    return [
        Device(
            index=int(info["index"]),
            name=str(info["name"]),
            hostapi=hostapis[int(info["hostapi"])],
            inputs=int(info["max_input_channels"]),
            outputs=int(info["max_output_channels"]),
            default_samplerate=float(info["default_samplerate"]),
            default_input=int(info["index"]) == default_in,
            default_output=int(info["index"]) == default_out,
        )
        for info in sd.query_devices()
    ]


def resolve_input(spec: int | str | None, devices: Sequence[Device] | None = None) -> Device:
    """The input device a user named: an index, part of its name, or None for the default."""
    return _resolve("input", spec, list_devices() if devices is None else devices)


def resolve_output(spec: int | str | None, devices: Sequence[Device] | None = None) -> Device:
    """The output device a user named: an index, part of its name, or None for the default."""
    return _resolve("output", spec, list_devices() if devices is None else devices)


def describe(device: Device) -> str:
    """One line for a listing: ``3  USB Headset (ALSA, 1 in, 2 out)``."""
    return (
        f"{device.index:>3}  {device.name} "
        f"({device.hostapi}, {device.inputs} in, {device.outputs} out)"
    )


def _resolve(direction: Direction, spec: int | str | None, devices: Sequence[Device]) -> Device:
    usable = [d for d in devices if d.channels(direction) > 0]
    if not usable:
        raise UserError(f"there is no audio {direction} device on this machine. {_NO_AUDIO_HINT}")
    if spec is None or spec == "":
        return next((d for d in usable if d.is_default(direction)), usable[0])
    text = str(spec).strip()
    if text.isdigit():
        found = [d for d in usable if d.index == int(text)]
    else:
        exact = [d for d in usable if d.name.casefold() == text.casefold()]
        found = exact or [d for d in usable if text.casefold() in d.name.casefold()]
    if len(found) == 1:
        return found[0]
    listing = "\n".join(describe(d) for d in (found or usable))
    if found:
        raise UserError(
            f"several {direction} devices match {text!r}; name one exactly or by index:\n" + listing
        )
    raise UserError(
        f"no {direction} device matches {text!r}. The {direction} devices are:\n"
        f"{listing}\n(`sandbox devices` lists them all.)"
    )
