"""The README's "Sound on a headless machine": its PulseAudio commands make the very devices
the audio tests and the bench use (``bench/sandbox_bench/pulse.py``), and route to them."""

from __future__ import annotations

import shlex

import pulse
from readme import code_block

SECTION = "Sound on a headless machine"
# The names the README gives (a parallel test worker's own devices add its tag).
SPEAKER = pulse.SPEAKER.removesuffix(pulse.WORKER_TAG)
MIC_FEED = pulse.MIC_FEED.removesuffix(pulse.WORKER_TAG)
MIC = pulse.MIC.removesuffix(pulse.WORKER_TAG)


def _lines() -> list[list[str]]:
    """The block's commands, split into words, comments dropped."""
    return [shlex.split(line, comments=True) for line in code_block(SECTION, "sh").splitlines()]


def test_the_readme_makes_the_devices_the_tests_use() -> None:
    modules = [words[2:] for words in _lines() if words[:2] == ["pactl", "load-module"]]
    assert modules == [
        ["module-null-sink", f"sink_name={SPEAKER}"],
        ["module-null-sink", f"sink_name={MIC_FEED}"],
        [
            "module-remap-source",
            f"master={MIC_FEED}.monitor",
            f"source_name={MIC}",
        ],
    ]
    words = [word for line in _lines() for word in line]
    assert words[words.index("set-default-sink") + 1] == SPEAKER
    assert words[words.index("set-default-source") + 1] == MIC


def test_the_readme_plays_into_the_microphone_and_records_the_speaker_as_the_tests_do() -> None:
    by_tool = {line[0]: line for line in _lines() if line}
    assert by_tool["pulseaudio"][:3] == ["pulseaudio", "-D", "--exit-idle-time=-1"]
    assert by_tool["paplay"][1:3] == ["-d", MIC_FEED]
    assert by_tool["parecord"][1:3] == ["-d", f"{SPEAKER}.monitor"]
