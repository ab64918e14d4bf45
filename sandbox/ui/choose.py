"""Real audio or typed mode: what ``sandbox run`` can do on this machine, decided up front.

Real audio needs PortAudio, a microphone (or ``--mic file.wav``) and a speaker (or
``--speaker file.wav`` / ``none``). The banner names the devices picked and what PortAudio
lists, in the words ``sandbox devices`` uses; when something is missing the app still runs,
typed, with a banner saying what is missing and how to get audio — except a caller's WAV
file, which needs no device: with no speaker found it plays as with ``--speaker none``, and
the banner says so. A device the user named that does not exist is an error in words
before the app starts, not a silent fallback.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from sandbox.audio.audio_options import AudioOptions
from sandbox.audio.device_choice import DeviceChoice, is_file, pick_devices
from sandbox.audio.devices import Device
from sandbox.audio.engine import AudioEngine
from sandbox.audio.mic import WavMic
from sandbox.caller.file_caller import FileCaller
from sandbox.ui.audio import AudioFrontend
from sandbox.ui.engine_audio import EngineAudio
from sandbox.ui.typed_audio import TypedAudio, typed_banner

#: How to get audio on a machine without devices.
HOW_TO_ENABLE = (
    "To talk instead, plug in a microphone and a speaker (a headless machine can use "
    "PulseAudio's virtual devices) and start `sandbox run` again; `sandbox devices` lists "
    "what PortAudio sees."
)
#: What a caller's file does on a machine with no speaker.
NO_SPEAKER = "the file plays all the same, and the bot's replies play silently (--speaker none)."
#: The banner's reason when the user asked for typed mode.
ASKED_TYPED = "you asked for typed mode (--typed)"


def missing_audio(
    options: AudioOptions, devices: Sequence[Device] | None = None, *, mic: bool = True
) -> str | None:
    """Why real audio cannot run with these options, in words; None when it can.

    ``devices``: what PortAudio lists (None: ask it). ``mic=False``: the caller is scripted,
    only a speaker is needed. Raises UserError for a device the user named that is not there.
    """
    return pick_devices(options.mic, options.speaker, devices, need_mic=mic).missing


def choose_audio(
    options: AudioOptions,
    *,
    typed: bool,
    ms_per_word: int,
    mic_delay_ms: int | None = None,
    end_at_eof: bool = True,
) -> AudioFrontend:
    """The audio engine when this machine can run it, typed mode (with its banner) when not.

    A WAV file as the microphone is read now (a bad file is an error before the app opens)
    and speaks as the caller: after the greeting or at ``mic_delay_ms``, ending the call at
    its end when ``end_at_eof``."""
    if typed:
        return TypedAudio(ms_per_word, typed_banner(ASKED_TYPED, ms_per_word))
    choice = pick_devices(options.mic, options.speaker)
    silent = ""
    if choice.missing is not None and is_file(options.mic) and options.speaker is None:
        # A caller's file needs no device: the replies are still paced, just not heard.
        silent = f" {choice.missing[0].upper()}{choice.missing[1:]}: {NO_SPEAKER}"
        options = replace(options, speaker="none")
        choice = pick_devices(options.mic, options.speaker)
    if choice.missing is not None:
        banner = typed_banner(choice.summary, ms_per_word, HOW_TO_ENABLE)
        if options.line.is_line:  # asked for, and not applied: said, not dropped silently
            banner += f" The line {options.line.name} is not applied: it shapes sound."
        return TypedAudio(ms_per_word, banner)
    if not is_file(options.mic):
        return EngineAudio(AudioEngine(options), banner=audio_banner(choice, options))
    mic = WavMic(Path(str(options.mic)))
    caller = FileCaller(mic, mic_delay_ms, end_at_eof)
    engine = AudioEngine(options, mic_source=mic)
    return EngineAudio(engine, banner=audio_banner(choice, options) + silent, caller=caller)


def audio_banner(choice: DeviceChoice, options: AudioOptions) -> str:
    """The banner of a call with real audio: the devices it uses, what else was found, and
    the line the caller is on."""
    listed = " `sandbox devices` lists them." if choice.found else ""
    line = f" Line: {options.line.summary()}." if options.line.is_line else ""
    return f"Audio: {choice.summary}.{listed}{line}"
