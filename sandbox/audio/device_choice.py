"""Which microphone and speaker a call uses, picked from what PortAudio lists, in words.

The app's banner and ``sandbox devices`` both say it with :func:`pick_devices`, so what
``sandbox devices`` promises is what ``sandbox run`` comes up with. PortAudio lists devices
once, at start: a sound server started later (PulseAudio, by another program) is seen only
by the next run, which is why the list is stated rather than assumed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sandbox.audio.devices import Device, Direction, list_devices, resolve_input, resolve_output
from sandbox.errors import UserError

_ROLES: dict[Direction, tuple[str, str]] = {
    "input": ("microphone", "--mic"),
    "output": ("speaker", "--speaker"),
}


@dataclass(frozen=True)
class DeviceChoice:
    """What was found and what was picked. ``missing`` says why real audio cannot run (None
    when it can); ``summary`` is the one sentence the banner and ``sandbox devices`` share."""

    found: str
    picked: tuple[str, ...]
    missing: str | None

    @property
    def summary(self) -> str:
        """``microphone 1 default (the system default), speaker …; PortAudio lists …``, or
        ``no microphone found; PortAudio lists …``."""
        first = self.missing if self.missing is not None else ", ".join(self.picked)
        return "; ".join(part for part in (first, self.found) if part)


def pick_devices(
    mic: str | None,
    speaker: str | None,
    devices: Sequence[Device] | None = None,
    *,
    need_mic: bool = True,
) -> DeviceChoice:
    """The devices ``mic`` and ``speaker`` (a device's index or name, a WAV file, None for the
    default) come to. ``devices``: what PortAudio lists (None: ask it). ``need_mic=False``: the
    caller is scripted, only a speaker is picked. A device named that is not there is a
    UserError listing those that are."""
    sides: list[tuple[Direction, str | None]] = [("input", mic)] if need_mic else []
    sides.append(("output", speaker))
    on_devices = [(d, spec) for d, spec in sides if not _is_file(d, spec)]
    if not on_devices:
        return DeviceChoice("", tuple(_file_pick(d, spec) for d, spec in sides), None)
    if devices is None:
        try:
            devices = list_devices()
        except UserError as exc:  # PortAudio is missing: its first line says so
            return DeviceChoice("PortAudio lists nothing", (), str(exc).splitlines()[0].rstrip("."))
    found = _found(devices)
    absent = [_ROLES[d][0] for d, _spec in on_devices if not any(x.channels(d) for x in devices)]
    if absent:
        return DeviceChoice(found, (), f"no {' and no '.join(absent)} found")
    picks = (
        _device_pick(d, spec, devices) if (d, spec) in on_devices else _file_pick(d, spec)
        for d, spec in sides
    )
    return DeviceChoice(found, tuple(picks), None)


#: What a microphone file may be (read with soundfile); a speaker file is always written as WAV.
_MIC_FILE_SUFFIXES = (".wav", ".flac", ".ogg", ".oga")


def is_file(spec: str | None, *, speaker: bool = False) -> bool:
    """Whether a --mic value names an audio file (WAV, FLAC, OGG), or a --speaker value a
    WAV file or none."""
    if spec is None:
        return False
    if speaker:
        return spec.lower().endswith(".wav") or spec.lower() == "none"
    return spec.lower().endswith(_MIC_FILE_SUFFIXES)


def _is_file(direction: Direction, spec: str | None) -> bool:
    return is_file(spec, speaker=direction == "output")


def _file_pick(direction: Direction, spec: str | None) -> str:
    role = _ROLES[direction][0]
    if spec is not None and spec.lower() == "none":
        return f"{role}: none (silent, paced in real time)"
    return f"{role}: the file {spec}"


def _device_pick(direction: Direction, spec: str | None, devices: Sequence[Device]) -> str:
    role, option = _ROLES[direction]
    resolve = resolve_input if direction == "input" else resolve_output
    device = resolve(spec, devices)
    if spec is not None:
        why = f"{option} {spec}"
    elif device.is_default(direction):
        why = f"the system default {direction}"
    else:
        why = f"the first {direction}: none is marked default"
    return f"{role} {device.index} {device.name} ({why})"


def _found(devices: Sequence[Device]) -> str:
    inputs = sum(1 for d in devices if d.inputs > 0)
    outputs = sum(1 for d in devices if d.outputs > 0)
    if not inputs and not outputs:
        return "PortAudio lists no sound device at all"
    return f"PortAudio lists {_count(inputs, 'microphone')} and {_count(outputs, 'speaker')}"


def _count(n: int, what: str) -> str:
    return f"no {what}" if n == 0 else f"1 {what}" if n == 1 else f"{n} {what}s"
