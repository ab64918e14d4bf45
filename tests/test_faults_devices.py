"""A device that goes away under ``sandbox run`` (its PulseAudio module unloaded mid-call, on
a server with no other device to move the stream to): the app says so in its banner, the
call goes on typed, and the session keeps everything. In a real terminal (tmux), with real
PortAudio streams, Whisper and Piper."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from brain_process import serving
from caller_audio import espeak, join, silence, write_wav
from private_pulse import PrivatePulse, private_pulse
from ui_tmux import Terminal, sandbox_run

from sandbox.paths import HOME_ENV
from sandbox.record.export import session_report_json
from sandbox.record.store import SessionStore
from sandbox.record.stored_call import frame_record

pytestmark = [
    pytest.mark.audio,
    pytest.mark.skipif(
        shutil.which("tmux") is None or shutil.which("pulseaudio") is None,
        reason="needs tmux and pulseaudio",
    ),
]

#: What the caller types first: the echo brain says it back, long enough to be cut off.
LONG_LINE = "I would like to hear about the classes you run on weekday evenings and at weekends"
#: Loading Whisper and Piper and speaking the greeting in real time, on a busy machine.
START_S = 90.0


@pytest.fixture
def server(tmp_path: Path) -> Iterator[PrivatePulse]:
    folder = tmp_path / "pulse"
    folder.mkdir()
    with private_pulse(folder) as pulse:
        yield pulse


def shows(words: str) -> Callable[[str], bool]:
    """A screen test: ``words`` are on it."""
    return lambda screen: words in screen


@pytest.fixture
def echo_brain(tmp_path: Path, home: Path) -> Iterator[str]:
    """The echo brain in a process of its own (short replies keep the test short)."""
    with serving(tmp_path, home, "echo") as (url, _process):
        yield url


def typed_turns_go_on(term: Terminal, first_unit: int) -> None:
    """Two typed turns are answered and played out after the loss."""
    for unit, line in enumerate(("prices please", "thanks"), start=first_unit):
        term.keys(line, "Enter")
        term.wait_for(shows(f"bot · unit {unit} · turn {unit} · played"), f"answer {unit}")


def session_kept_everything(lost: str) -> None:
    """Every unit the brain sent was played out and Finalized; the loss is in the session,
    in the words the app showed."""
    with SessionStore() as store:
        (row,) = store.sessions()
        report = session_report_json(store, row)
        frames = [str(frame_record(f).type) for f in store.frames(row.id)]
        losses = [e.data for e in store.events(row.id) if e.kind == "device_lost"]
    assert row.status == "completed" and report["ended_by"] == "caller"
    assert [u["fate"] for u in report["units"]] == ["played"] * len(report["units"])
    assert frames.count("finalize") == len(report["units"]) >= 3
    assert len(losses) == 1 and lost in str(losses[0])


def test_the_speaker_going_away_mid_reply_leaves_the_call_going_on_typed(
    server: PrivatePulse, home: Path, echo_brain: str
) -> None:
    server.load("speaker", "module-null-sink", "sink_name=fault_spk")
    server.load("mic", "module-null-source", "source_name=fault_mic")
    env = {HOME_ENV: str(home), **server.env(), "PULSE_SINK": "fault_spk"}
    env["PULSE_SOURCE"] = "fault_mic"
    with sandbox_run(["--brain", echo_brain, "--idle-ms", "0"], env) as term:
        term.wait_for(shows("greeting · played"), "the greeting", START_S)
        term.keys(LONG_LINE, "Enter")
        term.wait_for(shows("unit 2 · turn 2 · speaking"), "the answer to start")
        server.unload("speaker")
        screen = term.wait_for(shows("The speaker went away"), "the banner")
        assert "the call goes on without sound" in screen
        # The answer the speaker was playing goes on to its end, silently, then more turns.
        term.wait_for(shows("unit 2 · turn 2 · played"), "the answer to play out")
        typed_turns_go_on(term, 3)
        term.keys("C-q")
        screen = term.wait_for(lambda s: "EXIT=" in s, "the app to exit")
        assert "EXIT=0" in screen and "Traceback" not in screen
    session_kept_everything("The speaker went away")


@pytest.mark.slow  # the speaker's test is the one CI runs; this is the same path for the mic
def test_the_microphone_going_away_mid_sentence_commits_what_was_said_and_goes_on_typed(
    server: PrivatePulse, home: Path, echo_brain: str, tmp_path: Path
) -> None:
    # The microphone is a null sink's monitor, remapped: the only source on the server once
    # the sink goes (a speaker there would lend its monitor to the stream).
    server.load("mic_sink", "module-null-sink", "sink_name=fault_mic_sink")
    server.load(
        "mic", "module-remap-source", "master=fault_mic_sink.monitor", "source_name=fault_mic"
    )
    env = {HOME_ENV: str(home), **server.env(), "PULSE_SOURCE": "fault_mic"}
    speaker = tmp_path / "bot.wav"
    caller = write_wav(tmp_path / "caller.wav", join(silence(200), espeak(LONG_LINE)))
    with sandbox_run(
        ["--brain", echo_brain, "--idle-ms", "0", "--speaker", str(speaker)], env
    ) as term:
        term.wait_for(shows("greeting · played"), "the greeting", START_S)
        playing = subprocess.Popen(
            ["paplay", "--device=fault_mic_sink", str(caller)],
            env={**os.environ, **server.env()},
        )
        try:
            time.sleep(2.5)  # "I would like to hear about the classes you run..."
            server.unload("mic_sink")  # the remapped source goes with its master
        finally:
            playing.kill()
            playing.wait()
        screen = term.wait_for(shows("The microphone went away"), "the banner")
        assert "the call goes on in typed mode" in screen
        # What the caller said before the microphone went is their turn, answered.
        term.wait_for(shows("bot · unit 2 · turn 2 · played"), "the answer to what was said")
        typed_turns_go_on(term, 3)
        term.keys("C-q")
        screen = term.wait_for(shows("EXIT="), "the app to exit")
        assert "EXIT=0" in screen and "Traceback" not in screen
    session_kept_everything("The microphone went away")
    with SessionStore() as store:
        (row,) = store.sessions()
        said = [e.data["text"] for e in store.events(row.id) if e.kind == "turn_committed"]
    assert said and "hear about the" in said[0].lower(), said
