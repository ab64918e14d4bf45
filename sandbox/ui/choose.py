"""Real audio or typed mode: what ``sandbox run`` can do on this machine, decided up front.

Real audio needs PortAudio, a microphone (or ``--mic file.wav``) and a speaker (or
``--speaker file.wav`` / ``none``). When something is missing the app still runs, typed,
with a banner saying what is missing and how to get audio. A device the user named that
does not exist is an error in words before the app starts, not a silent fallback.
"""

from __future__ import annotations

from collections.abc import Sequence

from sandbox.audio.devices import Device, list_devices, resolve_input, resolve_output
from sandbox.audio.engine import AudioEngine, AudioOptions
from sandbox.errors import UserError
from sandbox.ui.audio import AudioFrontend
from sandbox.ui.engine_audio import EngineAudio
from sandbox.ui.typed_audio import TypedAudio, typed_banner

#: How to get audio on a machine without devices.
HOW_TO_ENABLE = (
    "To talk instead, plug in a microphone and a speaker (a headless machine can use "
    "PulseAudio's virtual devices) and start `sandbox run` again; `sandbox devices` lists "
    "what PortAudio sees."
)
#: The banner's reason when the user asked for typed mode.
ASKED_TYPED = "you asked for typed mode (--typed)"


def _is_file(spec: str | None, *, speaker: bool = False) -> bool:
    if spec is None:
        return False
    return spec.lower().endswith(".wav") or (speaker and spec.lower() == "none")


def missing_audio(
    options: AudioOptions, devices: Sequence[Device] | None = None, *, mic: bool = True
) -> str | None:
    """Why real audio cannot run with these options, in words; None when it can.

    ``devices``: what PortAudio lists (None: ask it). ``mic=False``: the caller is scripted,
    only a speaker is needed. Raises UserError for a device the user named that is not there.
    """
    need_mic = mic and not _is_file(options.mic)
    need_speaker = not _is_file(options.speaker, speaker=True)
    if not (need_mic or need_speaker):
        return None
    if devices is None:
        try:
            devices = list_devices()
        except UserError as exc:
            return str(exc).splitlines()[0].rstrip(".")  # PortAudio is missing: it says so
    present = {
        "microphone": any(d.inputs > 0 for d in devices),
        "speaker": any(d.outputs > 0 for d in devices),
    }
    wanted = (("microphone", need_mic), ("speaker", need_speaker))
    missing = [what for what, needed in wanted if needed and not present[what]]
    if missing:
        return f"no {' and no '.join(missing)} found"
    if need_mic and options.mic is not None:
        resolve_input(options.mic, devices)
    if need_speaker and options.speaker is not None:
        resolve_output(options.speaker, devices)
    return None


def choose_audio(options: AudioOptions, *, typed: bool, ms_per_word: int) -> AudioFrontend:
    """The audio engine when this machine can run it, typed mode (with its banner) when not."""
    if typed:
        return TypedAudio(ms_per_word, typed_banner(ASKED_TYPED, ms_per_word))
    why = missing_audio(options)
    if why is not None:
        return TypedAudio(ms_per_word, typed_banner(why, ms_per_word, HOW_TO_ENABLE))
    return EngineAudio(AudioEngine(options))
