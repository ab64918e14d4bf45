"""The scripted microphone and its duplex speaker: one clock for both directions."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from sandbox.audio.echo_path import LaptopEchoPath
from sandbox.audio.script_mic import ScriptMic
from sandbox.audio.sinks import Block

SPEAKER_RATE = 22050
BLOCK = SPEAKER_RATE // 50  # 20 ms at the speaker's rate


def test_the_speaker_is_pulled_in_step_with_capture_and_echoes_at_a_fixed_delay() -> None:
    mic = ScriptMic(LaptopEchoPath(ScriptMic.RATE, delay_ms=60, gain=0.5))
    speaker = mic.speaker(SPEAKER_RATE)
    pulls: list[int] = []
    captured: list[Block] = []
    enough = threading.Event()

    def pull(frames: int) -> Block:
        pulls.append(len(captured))  # capture blocks delivered before this pull
        block = np.zeros(frames, np.int16)
        if len(pulls) == 10:  # a click at the start of the tenth speaker block
            block[:40] = 20000
        return block

    def on_block(block: Block, _rate: int) -> None:
        captured.append(block)
        if len(captured) >= 25:
            enough.set()

    speaker.start(pull, BLOCK)
    mic.start(on_block)
    assert enough.wait(5)
    mic.stop()
    speaker.close()
    # One speaker block per capture block, pulled just before that capture block is built.
    assert pulls[:20] == list(range(20))
    heard = np.concatenate(captured).astype(np.float32)
    loud = int(np.argmax(np.abs(heard) > 3000))
    click_ms = 9 * 20  # the tenth block starts 180 ms in
    assert abs(loud * 1000 / ScriptMic.RATE - (click_ms + 60)) <= 2


def test_a_speaker_started_late_has_no_backlog_to_catch_up() -> None:
    mic = ScriptMic()
    speaker = mic.speaker(SPEAKER_RATE)
    ticks = 0
    started = threading.Event()
    pulled: list[int] = []

    def pull(frames: int) -> Block:
        pulled.append(frames)
        return np.zeros(frames, np.int16)

    def on_block(_block: Block, _rate: int) -> None:
        nonlocal ticks
        ticks += 1
        if ticks == 10:
            speaker.start(pull, BLOCK)
            started.set()

    mic.start(on_block)
    assert started.wait(5)
    mic.stop()
    assert len(pulled) <= ticks - 9  # one pull per tick after it started, none owed before


def test_a_line_cued_after_the_speakers_first_sound_starts_there_on_the_mics_clock() -> None:
    mic = ScriptMic()
    pulls = 0
    captured: list[Block] = []
    enough = threading.Event()
    line = np.full(ScriptMic.RATE // 10, 8000, np.int16)  # 100 ms of a constant level
    done = mic.speak(line, ScriptMic.RATE, after_sound_ms=300)
    with pytest.raises(ValueError, match="already waits"):
        mic.speak(line, ScriptMic.RATE, after_sound_ms=100)

    def pull(frames: int) -> Block:
        nonlocal pulls
        pulls += 1
        block = np.zeros(frames, np.int16)
        if pulls >= 8:  # the bot's first sound: the eighth block it plays
            block[:] = 100
        return block

    def on_block(block: Block, _rate: int) -> None:
        captured.append(block)
        if len(captured) == 5:  # the speaker comes in 100 ms into capture
            mic.speaker(SPEAKER_RATE).start(pull, BLOCK)
        if len(captured) >= 60:
            enough.set()

    mic.start(on_block)
    assert enough.wait(5) and done.is_set()
    mic.stop()
    heard = np.concatenate(captured)
    start = int(np.argmax(heard > 4000)) * 1000 // ScriptMic.RATE
    # The speaker's first pull comes with capture block 6 (100 ms); its 8th, at 240 ms.
    assert start == 240 + 300, start
    assert int(np.count_nonzero(heard > 4000)) == len(line)
