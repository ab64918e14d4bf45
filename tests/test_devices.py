"""Finding and naming sound devices, and the words a user gets when there are none."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from private_pulse import PrivatePulse, private_pulse
from ui_tmux import sandbox_run

from sandbox.audio.audio_options import AudioOptions
from sandbox.audio.devices import (
    Device,
    list_devices,
    require_sounddevice,
    resolve_input,
    resolve_output,
)
from sandbox.errors import UserError
from sandbox.ui.choose import choose_audio


def device(index: int, name: str, inputs: int, outputs: int, *, default: bool = False) -> Device:
    return Device(index, name, "ALSA", inputs, outputs, 44100.0, default, default)


LAPTOP = [
    device(0, "HDA Intel PCH: ALC257 Analog", 2, 2),
    device(1, "USB Headset: Audio", 1, 2),
    device(2, "HDMI 0", 0, 8),
    device(3, "default", 32, 32, default=True),
]


def run_sandbox(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sandbox.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
    )


def test_none_means_the_default_device() -> None:
    assert resolve_output(None, LAPTOP).index == 3
    assert resolve_input(None, LAPTOP).index == 3


def test_without_a_marked_default_the_first_usable_device_is_used() -> None:
    assert resolve_input(None, LAPTOP[:3]).index == 0
    assert resolve_output(None, LAPTOP[2:3]).index == 2


def test_a_device_is_named_by_index_or_by_part_of_its_name() -> None:
    assert resolve_output(2, LAPTOP).name == "HDMI 0"
    assert resolve_output("1", LAPTOP).name == "USB Headset: Audio"
    assert resolve_input("headset", LAPTOP).index == 1
    assert resolve_output("DEFAULT", LAPTOP).index == 3


def test_an_exact_name_wins_over_names_that_contain_it() -> None:
    devices = [*LAPTOP, device(4, "default (pipewire)", 2, 2)]
    assert resolve_output("default", devices).index == 3


def test_a_device_without_channels_that_way_does_not_count() -> None:
    with pytest.raises(UserError, match="no input device matches 'HDMI'"):
        resolve_input("HDMI", LAPTOP)


def test_a_missing_device_lists_what_exists_and_points_at_sandbox_devices() -> None:
    with pytest.raises(UserError) as caught:
        resolve_output("bluetooth", LAPTOP)
    message = str(caught.value)
    assert "no output device matches 'bluetooth'" in message
    assert "USB Headset: Audio" in message and "HDMI 0" in message
    assert "`sandbox devices`" in message
    with pytest.raises(UserError, match="no output device matches '9'"):
        resolve_output(9, LAPTOP)


def test_a_name_several_devices_share_asks_for_more() -> None:
    with pytest.raises(UserError, match="several input devices match 'a'") as caught:
        resolve_input("a", LAPTOP)
    assert "HDMI" not in str(caught.value)  # only the candidates are listed


def test_no_devices_at_all_says_so_and_that_typed_mode_still_works() -> None:
    with pytest.raises(UserError, match=r"no audio input device.*Typed mode works"):
        resolve_input(None, [])
    with pytest.raises(UserError, match="no audio output device"):
        resolve_output("anything", [device(5, "mic only", 1, 0)])


def test_a_missing_portaudio_library_names_the_fix() -> None:
    # Hide the library from sounddevice's lookup, in a fresh interpreter.
    probe = (
        "import ctypes.util; ctypes.util.find_library = lambda name: None\n"
        "from sandbox.audio.devices import require_sounddevice\n"
        "from sandbox.errors import UserError\n"
        "try:\n    require_sounddevice()\nexcept UserError as exc:\n    print(exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert "PortAudio library is missing" in out
    assert "sudo apt install libportaudio2" in out
    assert "macOS" in out and "Typed mode works without audio" in out


def test_portaudio_sees_the_virtual_devices(pulse: ModuleType) -> None:
    assert require_sounddevice().__name__ == "sounddevice"
    devices = list_devices()
    assert sum(d.default_output for d in devices) == 1
    assert sum(d.default_input for d in devices) == 1
    assert resolve_output(None).outputs > 0
    assert resolve_input("pulse").name == "pulse"


def test_sandbox_devices_lists_inputs_and_outputs_with_defaults_marked(pulse: ModuleType) -> None:
    result = run_sandbox("devices")
    assert result.returncode == 0, result.stderr
    portaudio = result.stdout.split("Pick one by its index")[0]  # PulseAudio's own follow
    inputs, outputs = portaudio.split("Outputs:")
    assert inputs.startswith("Inputs:")
    for section in (inputs, outputs):
        assert "pulse (ALSA" in section
        assert sum(line.startswith("*") for line in section.splitlines()) == 1


def test_sandbox_devices_on_a_machine_without_audio(pulse: ModuleType) -> None:
    result = run_sandbox("devices", PULSE_SERVER="unix:/nonexistent")
    assert result.returncode == 0
    assert "(none)" in result.stdout
    assert "typed mode still works without audio" in result.stdout


def _run_picks(listing: str) -> str:
    """What ``sandbox devices`` says ``sandbox run`` picks: the words after the colon."""
    line = next(line for line in listing.splitlines() if line.startswith("`sandbox run` "))
    return line.split(": ", 1)[1].removesuffix(".")


def test_the_apps_banner_names_the_devices_sandbox_devices_names(pulse: ModuleType) -> None:
    listing = run_sandbox("devices")
    picks = _run_picks(listing.stdout)
    assert picks.startswith("microphone ") and ", speaker " in picks
    assert "(the system default input)" in picks and "; PortAudio lists " in picks
    audio = choose_audio(AudioOptions(), typed=False, ms_per_word=100)
    assert audio.real and audio.banner.startswith(f"Audio: {picks}.")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_without_devices_the_banner_and_sandbox_devices_say_the_same(
    pulse: ModuleType, tmp_path: Path
) -> None:
    nowhere = {"PULSE_SERVER": "unix:/nonexistent"}  # PortAudio finds no device at all
    picks = _run_picks(run_sandbox("devices", **nowhere).stdout)
    assert picks == "no microphone and no speaker found; PortAudio lists no sound device at all"
    env = {"VOQALIZE_SANDBOX_HOME": str(tmp_path / "home"), **nowhere}
    with sandbox_run(["--idle-ms", "0"], env) as term:
        screen = term.wait_for(lambda s: "greeting · played" in s, "the greeting")
        assert f"Typed mode, no sound: {picks}." in " ".join(screen.split())
        term.keys("C-q")
        assert "EXIT=0" in term.wait_for(lambda s: "EXIT=" in s, "the app to exit")


@pytest.fixture
def named_pulse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PrivatePulse]:
    """A server of the test's own with two named speakers and a microphone, the second
    speaker its default (no device picked by the environment: the test picks them)."""
    if shutil.which("pulseaudio") is None or shutil.which("pactl") is None:
        pytest.skip("needs pulseaudio and pactl")
    for variable in ("PULSE_SINK", "PULSE_SOURCE"):
        monkeypatch.delenv(variable, raising=False)
    folder = tmp_path / "pulse"
    folder.mkdir()
    with private_pulse(folder) as server:
        server.load("desk", "module-null-sink", "sink_name=desk_speaker")
        server.load("headset", "module-null-sink", "sink_name=my_headset")
        server.load("feed", "module-null-sink", "sink_name=mic_feed")
        server.load("mic", "module-remap-source", "master=mic_feed.monitor", "source_name=my_mic")
        server.pactl("set-default-sink", "my_headset")
        server.pactl("set-default-source", "my_mic")
        yield server


def _pulse_section(listing: str, title: str) -> list[str]:
    """The lines under ``PulseAudio TITLE:`` up to the next heading."""
    lines = listing.splitlines()
    start = lines.index(f"PulseAudio {title}:") + 1
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith((" ", "*")))
    return lines[start:end]


def test_sandbox_devices_names_pulseaudios_sinks_and_sources(named_pulse: PrivatePulse) -> None:
    listed = run_sandbox("devices", **named_pulse.env())
    assert listed.returncode == 0, listed.stderr
    sinks = _pulse_section(listed.stdout, "sinks (speakers)")
    assert sinks == ["     desk_speaker", "*    my_headset", "     mic_feed"]
    sources = _pulse_section(listed.stdout, "sources (microphones)")
    assert "*    my_mic" in sources and "     mic_feed.monitor" in sources
    assert sum(line.startswith("*") for line in sources) == 1
    assert "PULSE_SINK=NAME PULSE_SOURCE=NAME sandbox run" in listed.stdout
    # PULSE_SINK / PULSE_SOURCE pick for the process: the marks follow them, and say so.
    picked = run_sandbox(
        "devices", **named_pulse.env(), PULSE_SINK="desk_speaker", PULSE_SOURCE="mic_feed.monitor"
    )
    sinks = _pulse_section(picked.stdout, "sinks (speakers)")
    assert sinks[:3] == ["*    desk_speaker", "     my_headset", "     mic_feed"]
    assert "    PULSE_SINK=desk_speaker picks it for this shell" in sinks
    sources = _pulse_section(picked.stdout, "sources (microphones)")
    assert "*    mic_feed.monitor" in sources
    assert "    PULSE_SOURCE=mic_feed.monitor picks it for this shell" in sources


def test_sandbox_devices_says_in_words_when_pulseaudio_cannot_be_asked(
    named_pulse: PrivatePulse, tmp_path: Path
) -> None:
    gone = run_sandbox("devices", PULSE_SERVER="unix:/nonexistent")
    assert gone.returncode == 0 and "Traceback" not in gone.stderr
    assert "PulseAudio: no PulseAudio server answers (" in gone.stdout
    # No pactl on the path, and PortAudio listing the server's "pulse" device.
    no_tools = run_sandbox("devices", **named_pulse.env(), PATH=str(tmp_path))
    assert no_tools.returncode == 0 and "Traceback" not in no_tools.stderr
    assert "PulseAudio: pactl is not installed, so PulseAudio's devices cannot be named" in (
        no_tools.stdout
    )
