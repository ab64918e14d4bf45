"""Real audio or typed mode: the decision, the banner, and the engine's hooks for the app."""

from __future__ import annotations

from pathlib import Path

import pytest
from caller_audio import silence, write_wav

from sandbox.audio.audio_options import AudioOptions
from sandbox.audio.device_choice import pick_devices
from sandbox.audio.devices import Device
from sandbox.errors import UserError
from sandbox.ui.choose import ASKED_TYPED, HOW_TO_ENABLE, choose_audio, missing_audio
from sandbox.ui.engine_audio import EngineAudio, level_from_db
from sandbox.ui.typed_audio import TypedAudio


def device(index: int, name: str, inputs: int, outputs: int) -> Device:
    return Device(index, name, "ALSA", inputs, outputs, 48000.0, index == 0, index == 0)


HEADSET = device(0, "USB Headset", 1, 2)
SPEAKERS = device(1, "HDMI speakers", 0, 2)


def test_audio_runs_when_there_is_a_microphone_and_a_speaker() -> None:
    assert missing_audio(AudioOptions(), [HEADSET]) is None
    assert missing_audio(AudioOptions(mic="usb", speaker="hdmi"), [HEADSET, SPEAKERS]) is None


def test_what_is_missing_is_said() -> None:
    assert missing_audio(AudioOptions(), [SPEAKERS]) == "no microphone found"
    assert missing_audio(AudioOptions(), []) == "no microphone and no speaker found"


def test_files_stand_in_for_devices() -> None:
    assert missing_audio(AudioOptions(mic="caller.wav", speaker="none"), []) is None
    assert missing_audio(AudioOptions(mic="caller.WAV"), [SPEAKERS]) is None
    assert missing_audio(AudioOptions(speaker="out.wav"), [SPEAKERS]) == "no microphone found"


def test_a_named_device_that_is_not_there_is_an_error_in_words() -> None:
    with pytest.raises(UserError, match="no input device matches 'studio mic'"):
        missing_audio(AudioOptions(mic="studio mic"), [HEADSET, SPEAKERS])


def test_typed_mode_when_asked_or_when_devices_are_missing(tmp_path: Path) -> None:
    asked = choose_audio(AudioOptions(), typed=True, ms_per_word=200)
    assert isinstance(asked, TypedAudio) and not asked.real
    assert ASKED_TYPED in asked.banner and "200 ms a word" in asked.banner
    wav = write_wav(tmp_path / "caller.wav", silence(100))
    files = choose_audio(AudioOptions(mic=str(wav), speaker="none"), typed=False, ms_per_word=1)
    assert isinstance(files, EngineAudio) and files.real and files.caller is not None
    assert files.banner == (
        f"Audio: microphone: the file {wav}, speaker: none (silent, paced in real time)."
    )
    assert HOW_TO_ENABLE.startswith("To talk instead, plug in a microphone and a speaker")


def test_the_devices_picked_are_named_with_why_and_what_was_found() -> None:
    choice = pick_devices(None, None, [HEADSET, SPEAKERS])
    assert choice.missing is None
    assert choice.summary == (
        "microphone 0 USB Headset (the system default input), "
        "speaker 0 USB Headset (the system default output); "
        "PortAudio lists 1 microphone and 2 speakers"
    )
    named = pick_devices(None, "hdmi", [SPEAKERS, HEADSET], need_mic=False)
    assert named.summary == (
        "speaker 1 HDMI speakers (--speaker hdmi); PortAudio lists 1 microphone and 2 speakers"
    )
    unmarked = device(3, "Line out", 0, 2)  # index 3: not marked default
    assert pick_devices(None, None, [unmarked], need_mic=False).picked == (
        "speaker 3 Line out (the first output: none is marked default)",
    )


def test_why_typed_mode_names_what_was_found() -> None:
    assert pick_devices(None, None, [SPEAKERS]).summary == (
        "no microphone found; PortAudio lists no microphone and 1 speaker"
    )
    assert pick_devices(None, None, []).summary == (
        "no microphone and no speaker found; PortAudio lists no sound device at all"
    )


def test_the_meter_maps_dbfs_onto_its_bar() -> None:
    assert level_from_db(-120.0) == 0.0
    assert level_from_db(-60.0) == 0.0
    assert level_from_db(-30.0) == 0.5
    assert level_from_db(0.0) == 1.0
    assert level_from_db(6.0) == 1.0
