"""SpeechOut: the core's effects through real Piper into a real playout clock."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest

from sandbox.audio.engine import AudioEngine
from sandbox.audio.playout import PlayoutClock
from sandbox.audio.sinks import MemorySink
from sandbox.audio.speech_out import SpeechOut
from sandbox.audio.tts import Synthesizer
from sandbox.call.played import Played, UnitPlayed, UnitUnspoken, WordPlayed
from sandbox.paths import HOME_ENV
from sandbox.wire import pb


def make(synthesizer: Synthesizer) -> tuple[SpeechOut, MemorySink, threading.Event]:
    sink = MemorySink(synthesizer.sample_rate)
    woke = threading.Event()
    out = SpeechOut(lambda _voice: synthesizer, lambda **cb: PlayoutClock(sink, **cb))
    out.start(wake=woke.set)
    return out, sink, woke


def collect(out: SpeechOut, until: type, speech_id: int, timeout: float = 30.0) -> list[Played]:
    seen: list[Played] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seen += out.advance(0)
        if any(isinstance(e, until) and e.speech_id == speech_id for e in seen):
            return seen
        time.sleep(0.01)
    raise AssertionError(f"no {until.__name__} for {speech_id}: {seen}")


def test_units_play_in_the_order_they_opened_word_by_word(synthesizer: Synthesizer) -> None:
    out, sink, woke = make(synthesizer)
    try:
        out.open_unit(1, pb.VOICE_JOE, pb.LANGUAGE_EN, 0)
        out.open_unit(2, pb.VOICE_JOE, pb.LANGUAGE_EN, 0)
        out.speak(2, "Second unit.", 0)  # its text arrives first
        out.close_unit(2, 0)
        out.speak(1, "First, ", 0)
        out.speak(1, "then more.", 0)
        out.close_unit(1, 0)
        assert out.speaking
        events = collect(out, UnitPlayed, 2)
    finally:
        out.stop()
    assert [_plain(e) for e in events] == [
        WordPlayed(1, "First,"),
        WordPlayed(1, "then"),
        WordPlayed(1, "more."),
        UnitPlayed(1),
        WordPlayed(2, "Second"),
        WordPlayed(2, "unit."),
        UnitPlayed(2),
    ]
    words = [e for e in events if isinstance(e, WordPlayed)]
    assert [w.index for w in words] == [0, 1, 2, 0, 1]  # each word's place in its unit
    samples = [w.sample or 0 for w in words]
    assert samples == sorted(samples) and samples[-1] < len(sink.samples())
    assert woke.is_set() and not out.speaking
    assert len(sink.samples()) > synthesizer.sample_rate  # over a second of real speech
    assert out.timing.first_audio[1] >= out.timing.first_text[1]


def test_cut_silences_and_nothing_of_the_cut_unit_plays_after(synthesizer: Synthesizer) -> None:
    out, _sink, _woke = make(synthesizer)
    try:
        out.open_unit(1, pb.VOICE_JOE, pb.LANGUAGE_EN, 0)
        out.speak(1, "One two three four five six. Seven eight nine ten.", 0)
        out.close_unit(1, 0)
        collect(out, WordPlayed, 1)
        out.cut(0)
        assert not out.speaking
        out.advance(0)  # what was released before the cut returned; nothing is after it
        out.open_unit(2, pb.VOICE_JOE, pb.LANGUAGE_EN, 0)
        out.speak(2, "After the cut.", 0)
        out.close_unit(2, 0)
        events = collect(out, UnitPlayed, 2)
        # One synthesis thread, in order: whatever was left of unit 1 was dropped or queued
        # before unit 2's audio, so by now it would have played, or still wait in the clock.
        assert not out.clock.is_speaking
    finally:
        out.stop()
    assert [e for e in events if getattr(e, "speech_id", 0) == 1] == []  # not a word, not a done
    assert WordPlayed(2, "After") in [_plain(e) for e in events]


def test_a_unit_whose_voice_cannot_load_is_unspoken_and_the_next_unit_plays(
    synthesizer: Synthesizer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Amy's model in the data dir is corrupt: her unit is reported unspoken with the
    loader's words, never raised on the worker thread, and Joe's unit after it plays."""
    monkeypatch.setenv(HOME_ENV, str(tmp_path))
    voices = tmp_path / "voices"
    voices.mkdir()
    (voices / "en_US-amy-medium.onnx").write_bytes(b"not an ONNX model\n" * 64)
    assert synthesizer.voice.config_path is not None
    shutil.copy(synthesizer.voice.config_path, voices / "en_US-amy-medium.onnx.json")
    engine = AudioEngine(synthesizers={pb.VOICE_JOE: synthesizer})
    sink = MemorySink(synthesizer.sample_rate)
    out = SpeechOut(engine.synthesizer_for, lambda **cb: PlayoutClock(sink, **cb))
    out.start()
    try:
        out.open_unit(1, pb.VOICE_AMY, pb.LANGUAGE_EN, 0)
        out.open_unit(2, pb.VOICE_JOE, pb.LANGUAGE_EN, 0)
        out.speak(1, "Hello, this is Amy. ", 0)
        out.speak(1, "Still Amy.", 0)
        out.close_unit(1, 0)
        out.speak(2, "Joe here.", 0)
        out.close_unit(2, 0)
        events = collect(out, UnitPlayed, 2)
    finally:
        out.stop()
    unspoken = [e for e in events if isinstance(e, UnitUnspoken)]
    assert len(unspoken) == 1 and unspoken[0].speech_id == 1
    assert unspoken[0].reason.startswith("cannot load voice amy from ")
    assert [_plain(e) for e in events if getattr(e, "speech_id", 0) == 2] == [
        WordPlayed(2, "Joe"),
        WordPlayed(2, "here."),
        UnitPlayed(2),
    ]
    assert not [e for e in events if isinstance(e, WordPlayed) and e.speech_id == 1]


def test_idle_is_told_once_a_reply_is_all_synthesized_while_it_still_plays(
    synthesizer: Synthesizer,
) -> None:
    """The engine gives memory back there: after the reply's last clip is queued (not
    before, not per clause), on the synthesis thread, with its audio still to play."""
    sink = MemorySink(synthesizer.sample_rate)
    idle: list[tuple[str, bool]] = []
    out: SpeechOut | None = None

    def told() -> None:
        assert out is not None
        idle.append((threading.current_thread().name, out.speaking))

    out = SpeechOut(lambda _voice: synthesizer, lambda **cb: PlayoutClock(sink, **cb), on_idle=told)
    out.start()
    try:
        out.open_unit(1, pb.VOICE_JOE, pb.LANGUAGE_EN, 0)
        out.speak(1, "One clause, ", 0)
        out.speak(1, "then another one. And a last sentence.", 0)
        out.close_unit(1, 0)
        collect(out, UnitPlayed, 1)
    finally:
        out.stop()
    assert idle == [("tts", True)]


def _plain(event: Played) -> Played:
    """The event without where it was on the output (which the test cannot know)."""
    return WordPlayed(event.speech_id, event.word) if isinstance(event, WordPlayed) else event
