"""The playout clock: pacing, FIFO, heard words and cuts on a fake clock, then on a real device."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from numpy.typing import NDArray
from pulse import read_wav

from sandbox.audio.playout import PlayoutClock, heard_at
from sandbox.audio.sinks import DeviceSink, MemorySink, NullSink, WavSink
from sandbox.audio.tts import Clip, Synthesizer, WordSpan

RATE = 22050
BLOCK = RATE * 20 // 1000  # 441 samples per 20 ms block


class FakeClock:
    """Time that moves only when a test says so."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class ThreadClock(FakeClock):
    """A fake clock for the playout clock's own thread: the test moves it, then waits
    until the thread has pumped at the new time (:meth:`caught_up`)."""

    def __init__(self) -> None:
        super().__init__()
        self._reads = 0
        self._moved_at = 0  # reads before the last move
        self._read = threading.Condition()

    def __call__(self) -> float:
        with self._read:
            self._reads += 1
            self._read.notify_all()
            return self.now

    def advance(self, seconds: float) -> None:
        with self._read:
            self.now += seconds
            self._moved_at = self._reads

    def caught_up(self, timeout: float = 5.0) -> None:
        """Return once a whole pump has run at the time now set.

        Each round of the thread reads the clock twice, to pump and then to wait for the
        next block: three reads after a move take in one pump from its start to its end.
        """
        with self._read:
            target = self._moved_at + 3
            if not self._read.wait_for(lambda: self._reads >= target, timeout):
                raise AssertionError(f"the playout thread did not pump within {timeout} s")


@dataclass
class Events:
    """Everything the clock reported, in order."""

    log: list[tuple[str, int, int, str]] = field(default_factory=list)
    released: list[np.ndarray] = field(default_factory=list)

    def word(self, speech_id: int, index: int, text: str, _sample: int) -> None:
        self.log.append(("word", speech_id, index, text))

    def done(self, speech_id: int) -> None:
        self.log.append(("done", speech_id, -1, ""))

    def release(self, block: np.ndarray) -> None:
        self.released.append(block.copy())

    def words(self) -> list[tuple[int, int, str]]:
        return [(s, i, t) for kind, s, i, t in self.log if kind == "word"]

    def dones(self) -> list[int]:
        return [s for kind, s, _, _ in self.log if kind == "done"]


def clip(value: int, length: int, words: tuple[tuple[str, int, int], ...] = ()) -> Clip:
    """A clip of one constant sample value, so where its audio went is easy to see."""
    return Clip(
        samples=np.full(length, value, np.int16),
        sample_rate=RATE,
        words=tuple(WordSpan(t, s, e) for t, s, e in words),
        text=" ".join(t for t, _, _ in words),
    )


def rig() -> tuple[PlayoutClock, MemorySink, FakeClock, Events]:
    sink, fake, events = MemorySink(RATE), FakeClock(), Events()
    playout = PlayoutClock(
        sink, on_word=events.word, on_unit_done=events.done, on_release=events.release, clock=fake
    )
    return playout, sink, fake, events


def run_for(playout: PlayoutClock, fake: FakeClock, seconds: float) -> None:
    """Advance the fake clock block by block, pumping each time."""
    for _ in range(round(seconds / 0.02)):
        fake.advance(0.02)
        playout.pump()


# ------------------------------------------------------------------- pacing


def test_blocks_are_released_as_the_clock_makes_them_due() -> None:
    playout, sink, fake, _ = rig()
    assert playout.pump() == 1  # block 0 is due at once
    fake.advance(0.019)
    assert playout.pump() == 0
    fake.advance(0.001)
    assert playout.pump() == 1
    fake.advance(0.1)  # late: catch up on everything due
    assert playout.pump() == 5
    assert len(sink.samples()) == 7 * BLOCK


def test_idle_output_is_silence_and_every_block_reaches_on_release() -> None:
    playout, sink, fake, events = rig()
    playout.pump()
    run_for(playout, fake, 0.1)
    assert not sink.samples().any()
    assert np.array_equal(np.concatenate(events.released), sink.samples())
    assert not playout.is_speaking


# ---------------------------------------------------------------------- FIFO


def test_units_play_in_enqueue_order_each_clip_back_to_back() -> None:
    playout, sink, fake, events = rig()
    playout.enqueue(1, clip(1, 1000))
    playout.enqueue(2, clip(3, 500))
    playout.enqueue(1, clip(2, 700))  # unit 1's second clip still plays before unit 2
    playout.end_unit(2)
    playout.end_unit(1)
    playout.pump()
    run_for(playout, fake, 0.2)
    out = sink.samples()
    expected = np.concatenate([np.full(1000, 1), np.full(700, 2), np.full(500, 3)])
    assert np.array_equal(out[:2200], expected)
    assert not out[2200:].any()
    assert events.dones() == [1, 2]
    assert not playout.is_speaking


def test_a_unit_waiting_for_its_next_clip_holds_back_the_units_behind_it() -> None:
    playout, sink, fake, events = rig()
    playout.enqueue(1, clip(1, 300))
    playout.enqueue(2, clip(2, 300))
    playout.end_unit(2)
    playout.pump()
    run_for(playout, fake, 0.1)
    assert np.count_nonzero(sink.samples() == 2) == 0  # unit 1 is still open
    assert events.dones() == []
    assert playout.is_speaking
    playout.end_unit(1)
    run_for(playout, fake, 0.1)
    assert np.count_nonzero(sink.samples() == 2) == 300
    assert events.dones() == [1, 2]


def test_a_unit_done_fires_in_the_block_that_releases_its_last_sample() -> None:
    playout, _, _, events = rig()
    playout.enqueue(1, clip(1, BLOCK + 10))
    playout.end_unit(1)
    playout.pull(BLOCK)
    assert events.dones() == []
    playout.pull(BLOCK)
    assert events.dones() == [1]


def test_an_empty_unit_is_done_at_its_turn_in_line() -> None:
    playout, _, _, events = rig()
    playout.end_unit(7)  # nothing to say at all: done with the next block
    playout.pull(BLOCK)
    assert events.dones() == [7]
    playout.enqueue(8, clip(1, 3 * BLOCK))
    playout.end_unit(9)  # queued behind unit 8, so done only after it
    playout.end_unit(8)
    playout.pull(BLOCK)
    playout.pull(BLOCK)
    assert events.dones() == [7]
    playout.pull(BLOCK)
    assert events.dones() == [7, 8, 9]


def test_a_speech_id_may_come_back_after_its_unit_ended() -> None:
    playout, _, _, events = rig()
    playout.enqueue(5, clip(1, 100))
    playout.end_unit(5)
    playout.enqueue(5, clip(2, 100))  # a new unit under the same id, behind the first
    playout.end_unit(5)
    block = playout.pull(BLOCK)
    assert events.dones() == [5, 5]
    assert np.array_equal(block[:200], np.repeat([1, 2], 100))


def test_a_clip_at_another_rate_is_refused() -> None:
    playout, _, _, _ = rig()
    other = Clip(samples=np.zeros(10, np.int16), sample_rate=16000, words=(), text="")
    with pytest.raises(ValueError, match="16000 Hz"):
        playout.enqueue(1, other)


# --------------------------------------------------------------------- words


def test_a_word_is_heard_once_its_first_sample_is_released() -> None:
    playout, _, _, events = rig()
    # "hello" spans [1000, 3000): heard once 1001 samples are out, in block 3 (to 1323).
    playout.enqueue(1, clip(1, 5000, (("hello", 1000, 3000), ("there.", 3100, 4900))))
    playout.end_unit(1)
    for _ in range(2):
        playout.pull(BLOCK)  # 882 samples out
    assert events.words() == []
    playout.pull(BLOCK)
    assert events.words() == [(1, 0, "hello")]
    while len(events.words()) < 2:
        playout.pull(BLOCK)
    released = sum(len(b) for b in events.released)
    assert released - BLOCK < heard_at(WordSpan("there.", 3100, 4900)) <= released


def test_the_first_sample_counts_and_an_empty_word_counts_where_it_stands() -> None:
    assert heard_at(WordSpan("a", 10, 11)) == 11  # its one sample must be out
    assert heard_at(WordSpan("a", 10, 20)) == 11
    assert heard_at(WordSpan("—", 40, 40)) == 40


def test_word_indices_run_on_across_a_units_clips() -> None:
    playout, _, fake, events = rig()
    playout.enqueue(3, clip(1, 600, (("Good", 0, 200), ("question.", 250, 600))))
    playout.enqueue(3, clip(1, 600, (("One", 0, 300), ("approach", 300, 600))))
    playout.end_unit(3)
    playout.pump()
    run_for(playout, fake, 0.1)
    assert events.words() == [
        (3, 0, "Good"),
        (3, 1, "question."),
        (3, 2, "One"),
        (3, 3, "approach"),
    ]
    assert events.log[-1] == ("done", 3, -1, "")


def test_events_follow_release_order_within_a_block() -> None:
    playout, _, _, events = rig()
    playout.enqueue(1, clip(1, 100, (("a", 0, 100),)))
    playout.end_unit(1)
    playout.enqueue(2, clip(2, 100, (("b", 0, 100),)))
    playout.end_unit(2)
    playout.pull(BLOCK)  # both units fit in one block
    assert events.log == [
        ("word", 1, 0, "a"),
        ("done", 1, -1, ""),
        ("word", 2, 0, "b"),
        ("done", 2, -1, ""),
    ]


# --------------------------------------------------------------------- pause


def ramp_clip(length: int, words: tuple[tuple[str, int, int], ...]) -> Clip:
    """A clip whose every sample is its own index (mod 30000): where each went is plain."""
    return Clip(
        samples=(np.arange(length) % 30000 + 1).astype(np.int16),
        sample_rate=RATE,
        words=tuple(WordSpan(t, s, e) for t, s, e in words),
        text=" ".join(t for t, _, _ in words),
    )


def test_a_pause_fades_out_within_one_block_then_holds_silence_and_reports_nothing() -> None:
    playout, _, _, events = rig()
    playout.enqueue(1, ramp_clip(10 * BLOCK, (("one", 0, BLOCK), ("two", 3 * BLOCK, 5 * BLOCK))))
    playout.end_unit(1)
    playout.pull(BLOCK)
    assert events.words() == [(1, 0, "one")]
    playout.pause()
    assert playout.paused and playout.is_speaking
    fade = playout.pull(BLOCK)
    fade_n = playout.fade_frames
    # The fade takes the samples that come next, louder to quieter, and silence after it.
    assert fade[0] == BLOCK + 1 and 0 < fade[fade_n - 2] < fade[0] and not fade[fade_n:].any()
    for _ in range(10):
        assert not playout.pull(BLOCK).any()
    assert events.words() == [(1, 0, "one")] and events.dones() == []


def test_resume_goes_on_from_the_exact_sample_so_the_whole_unit_plays_once() -> None:
    playout, _, _, events = rig()
    length = 10 * BLOCK + 123
    words = (("one", 0, BLOCK), ("two", 2 * BLOCK + 7, 4 * BLOCK), ("three", 6 * BLOCK, length))
    playout.enqueue(1, ramp_clip(length, words))
    playout.end_unit(1)
    played = [playout.pull(BLOCK), playout.pull(BLOCK)]
    playout.pause()
    playout.pull(BLOCK)  # the fade-out: none of its samples count as released
    for _ in range(5):
        playout.pull(BLOCK)
    assert events.words() == [(1, 0, "one")]
    playout.resume()
    first = playout.pull(BLOCK)
    assert first[0] == 0 and first[playout.fade_frames :].tolist() == list(
        range(2 * BLOCK + playout.fade_frames + 1, 3 * BLOCK + 1)
    )
    played.append(first)
    while not events.dones():
        played.append(playout.pull(BLOCK))
    audio = np.concatenate(played)
    n = playout.fade_frames
    # Sample for sample the clip, once, in order; only the fade-in's own samples are softer.
    whole = ramp_clip(length, words).samples
    assert len(np.trim_zeros(audio, "b")) == length
    faded = slice(2 * BLOCK, 2 * BLOCK + n)
    assert np.array_equal(np.delete(audio[:length], np.r_[faded]), np.delete(whole, np.r_[faded]))
    assert events.words() == [(1, 0, "one"), (1, 1, "two"), (1, 2, "three")]
    assert events.dones() == [1]


def test_a_cut_while_paused_drops_the_unit_and_ends_the_pause() -> None:
    playout, _, _, events = rig()
    playout.enqueue(1, ramp_clip(6 * BLOCK, (("one", 0, BLOCK), ("two", 3 * BLOCK, 5 * BLOCK))))
    playout.pull(BLOCK)
    playout.pause()
    assert playout.cut() == [1]
    assert not playout.paused
    playout.enqueue(2, clip(9, BLOCK, (("next", 0, BLOCK),)))
    playout.end_unit(2)
    assert playout.pull(BLOCK)[-1] == 9
    assert events.words() == [(1, 0, "one"), (2, 0, "next")]


# ----------------------------------------------------------------------- cut


def test_cut_silences_the_next_block_and_nothing_more_is_reported() -> None:
    playout, sink, fake, events = rig()
    playout.enqueue(1, clip(5, 10 * BLOCK, (("one", 0, 2 * BLOCK), ("two", 8 * BLOCK, 10 * BLOCK))))
    playout.enqueue(2, clip(6, 2 * BLOCK, (("later", 0, 2 * BLOCK),)))
    playout.end_unit(2)
    playout.pump()
    run_for(playout, fake, 0.06)  # four blocks out: "one" heard, "two" not yet
    assert events.words() == [(1, 0, "one")]
    assert playout.cut() == [1, 2]
    assert not playout.is_speaking
    before = len(sink.samples())
    run_for(playout, fake, 0.3)
    assert not sink.samples()[before:].any()
    assert events.words() == [(1, 0, "one")]
    assert events.dones() == []


def test_a_unit_enqueued_after_a_cut_plays() -> None:
    playout, sink, fake, events = rig()
    playout.enqueue(1, clip(5, 10 * BLOCK))
    playout.pump()
    playout.cut()
    playout.enqueue(1, clip(7, 100, (("again", 0, 100),)))
    playout.end_unit(1)
    run_for(playout, fake, 0.04)
    assert np.count_nonzero(sink.samples() == 7) == 100
    assert events.words() == [(1, 0, "again")]
    assert events.dones() == [1]


def test_cut_from_inside_a_callback_takes_effect_with_the_next_block() -> None:
    sink, fake = MemorySink(RATE), FakeClock()
    heard: list[str] = []

    def on_word(_speech_id: int, _index: int, text: str, _sample: int) -> None:
        heard.append(text)
        playout.cut()  # re-entrant: a callback may call back into the clock

    playout = PlayoutClock(sink, on_word=on_word, on_unit_done=lambda _s: None, clock=fake)
    playout.enqueue(1, clip(3, 5 * BLOCK, (("a", 0, BLOCK), ("b", 3 * BLOCK, 4 * BLOCK))))
    playout.pump()
    run_for(playout, fake, 0.1)
    assert heard == ["a"]
    assert np.count_nonzero(sink.samples()) == BLOCK


# ------------------------------------------------------------------ running


def test_the_clocks_own_thread_paces_a_sink_by_its_clock() -> None:
    sink, fake = MemorySink(RATE), ThreadClock()
    playout = PlayoutClock(sink, on_word=lambda *_: None, on_unit_done=lambda _s: None, clock=fake)
    playout.start()
    try:
        fake.caught_up()
        assert len(sink.blocks) == 1  # block 0 is due at once
        fake.advance(0.019)
        fake.caught_up()
        assert len(sink.blocks) == 1  # never ahead of its clock
        fake.advance(0.001)
        fake.caught_up()
        assert len(sink.blocks) == 2
        fake.advance(0.5)  # the thread was late: it catches up on everything due at once
        fake.caught_up()
        assert len(sink.blocks) == 27
    finally:
        playout.stop()
    assert not sink.samples().any()


def test_a_null_sink_is_silent_but_words_are_still_heard_on_time() -> None:
    fake = ThreadClock()
    start = fake.now
    done = threading.Event()
    heard: list[tuple[float, str]] = []
    playout = PlayoutClock(
        NullSink(RATE),
        on_word=lambda _s, _i, text, _at: heard.append((fake.now, text)),
        on_unit_done=lambda _s: done.set(),
        clock=fake,
    )
    # "late" starts 0.25 s in, so its first sample is in block 12: released 0.24 s in.
    playout.enqueue(1, clip(9, RATE // 2, (("late", RATE // 4, RATE // 2),)))
    playout.end_unit(1)
    playout.start()
    try:
        fake.caught_up()
        while not heard and fake.now - start < 1:
            fake.advance(0.02)
            fake.caught_up()
        fake.advance(0.5)
        assert done.wait(5)
    finally:
        playout.stop()
    ((when, text),) = heard
    assert text == "late"
    assert round(when - start, 3) == 0.24  # paced like a speaker: never early, never late


def test_an_error_in_a_callback_stops_playout_and_surfaces_on_stop() -> None:
    raised = threading.Event()

    def broken(_speech_id: int) -> None:
        raised.set()
        raise RuntimeError("host went away")

    playout = PlayoutClock(MemorySink(RATE), on_word=lambda *_: None, on_unit_done=broken)
    playout.start()
    playout.end_unit(1)
    assert raised.wait(5)
    with pytest.raises(RuntimeError, match="host went away"):
        playout.stop()


def test_a_wav_sink_holds_exactly_what_was_released(tmp_path: Path) -> None:
    path = tmp_path / "out.wav"
    fake = FakeClock()
    playout = PlayoutClock(
        WavSink(path, RATE), on_word=lambda *_: None, on_unit_done=lambda _s: None, clock=fake
    )
    playout.enqueue(1, clip(4, 1000))
    playout.end_unit(1)
    playout.pump()
    run_for(playout, fake, 0.1)
    playout.stop()
    samples, rate = read_wav(path)
    assert rate == RATE
    assert len(samples) == 6 * BLOCK
    assert np.count_nonzero(samples == 4) == 1000


# ----------------------------------------------- through a real output device


def envelope(samples: NDArray[np.int16], rate: int, frame_s: float = 0.01) -> NDArray[np.int32]:
    """Peak level per 10 ms frame."""
    frame = int(rate * frame_s)
    usable = len(samples) // frame * frame
    peaks: NDArray[np.int32] = (
        np.abs(samples[:usable].astype(np.int32)).reshape(-1, frame).max(axis=1)
    )
    return peaks


def lag_of(needle: np.ndarray, haystack: np.ndarray) -> int:
    """Where ``needle`` sits in ``haystack``, by FFT cross-correlation."""
    size = 1 << int(np.ceil(np.log2(len(haystack) + len(needle))))
    corr = np.fft.irfft(
        np.fft.rfft(haystack.astype(np.float64), size)
        * np.conj(np.fft.rfft(needle.astype(np.float64), size)),
        size,
    )
    return int(np.argmax(corr[: len(haystack)]))


LOUD = 500  # well above the null sink's digital silence, well below speech peaks


#: How far a piece of a clip may sit from its place in a recording: one underrun's gap.
SLACK_S = 0.02


def pieces_off(
    clip: NDArray[np.int16],
    recording: NDArray[np.int16],
    rate: int,
    start: int,
    end: int | None = None,
) -> tuple[list[tuple[float, int, float]], list[tuple[float, int, float]]]:
    """``clip[start:end]`` found in ``recording`` a quarter second at a time: each piece's
    (second in the clip, samples off its place, similarity), and the pieces not where they
    belong or not alike. Piece by piece: on a loaded machine one underrun (a 10-20 ms gap)
    shifts everything after it, which a single correlation over the whole clip reads as a
    different sound."""
    end = len(clip) if end is None else end
    lag = lag_of(clip[:end], recording)
    slack, window = int(SLACK_S * rate), rate // 4
    pieces = []
    for at_clip in range(start, end, window):
        piece = clip[at_clip : min(at_clip + window, end)]
        if len(piece) < rate // 20 or np.abs(piece.astype(np.int32)).max() < LOUD:
            continue  # a pause between words, or too little to match
        at = lag + at_clip - slack
        around = recording[max(0, at) : lag + at_clip + len(piece) + slack]
        found = max(0, at) + lag_of(piece, around)
        match = recording[found : found + len(piece)].astype(np.float64)
        similarity = np.corrcoef(match, piece.astype(np.float64))[0, 1]
        pieces.append((at_clip / rate, found - lag - at_clip, round(float(similarity), 3)))
    off = [p for p in pieces if p[2] <= 0.9 or abs(p[1]) > slack]
    return pieces, off


def play_and_record(
    pulse: ModuleType, synthesizer: Synthesizer, tmp_path: Path, *, cut_after_word: int | None
) -> tuple[Clip, np.ndarray, np.ndarray]:
    """Play one sentence through PortAudio into the virtual speaker, cutting it if asked.

    Returns the clip, what the clock released (on_release), and what the speaker played.
    """
    text = "The quick brown fox jumps over the lazy dog near the quiet river bank."
    spoken = next(synthesizer.synthesize(text))
    released: list[np.ndarray] = []
    pulled = threading.Condition()
    heard = threading.Event()
    finished = threading.Event()

    def on_word(_speech_id: int, index: int, _text: str, _sample: int) -> None:
        if index == cut_after_word:
            heard.set()

    def on_release(block: np.ndarray) -> None:
        with pulled:
            released.append(block.copy())
            pulled.notify_all()

    def device_plays(seconds: float) -> None:
        """Wait until the device has pulled ``seconds`` more of audio: its clock, not ours."""
        with pulled:
            target = len(released) + round(seconds / 0.02)
            assert pulled.wait_for(lambda: len(released) >= target, seconds + 5)

    playout = PlayoutClock(
        DeviceSink(None, synthesizer.sample_rate),
        on_word=on_word,
        on_unit_done=lambda _s: finished.set(),
        on_release=on_release,
    )
    with pulse.record_speaker(tmp_path / "heard.wav", rate=synthesizer.sample_rate) as path:
        playout.start()
        device_plays(0.2)  # the stream runs before the clip is queued
        playout.enqueue(1, spoken)
        playout.end_unit(1)
        if cut_after_word is None:
            assert finished.wait(spoken.duration + 5)
        else:
            assert heard.wait(spoken.duration + 5)
            playout.cut()
        device_plays(1.5)  # the speaker's silence after the end or the cut, recorded
        playout.stop()
    recording, rate = read_wav(path)
    assert rate == synthesizer.sample_rate
    return spoken, np.concatenate(released), recording


@pytest.mark.audio
def test_a_real_clip_comes_out_of_a_real_output_device_whole(
    pulse: ModuleType, synthesizer: Synthesizer, tmp_path: Path
) -> None:
    spoken, _, recording = play_and_record(pulse, synthesizer, tmp_path, cut_after_word=None)
    rate = spoken.sample_rate
    played = np.flatnonzero(envelope(recording, rate) > LOUD)
    voiced = np.flatnonzero(envelope(spoken.samples, rate) > LOUD)
    assert played.size, "the speaker played nothing"
    # The speaker's sound lasts as long as the clip's, to within two 10 ms frames.
    assert abs((played[-1] - played[0]) - (voiced[-1] - voiced[0])) <= 2
    # Every part of the clip came out, in order, where it belongs to within those two
    # frames.
    pieces, off = pieces_off(spoken.samples, recording, rate, voiced[0] * rate // 100)
    assert len(pieces) > 10 and len(off) <= 1, off  # one piece may hold the gap itself


@pytest.mark.audio
def test_a_cut_mid_clip_leaves_silence_from_the_cut_on(
    pulse: ModuleType, synthesizer: Synthesizer, tmp_path: Path
) -> None:
    spoken, released, recording = play_and_record(pulse, synthesizer, tmp_path, cut_after_word=3)
    rate = spoken.sample_rate
    # What the clock released: the clip's start, then silence for good.
    start = lag_of(spoken.samples, released)
    out = np.flatnonzero(released)
    cut_at = out[-1] + 1 - start  # clip samples released before the cut
    fox = spoken.words[3]
    assert heard_at(fox) <= cut_at < len(spoken.samples)
    assert np.array_equal(released[start : start + cut_at], spoken.samples[:cut_at])
    # What the speaker played: the same prefix, and silence after the cut point.
    pieces, off = pieces_off(spoken.samples, recording, rate, 0, cut_at)
    assert len(pieces) >= 3 and len(off) <= 1, off  # one piece may hold an underrun's gap
    # Silence from the cut on (an underrun's gap may have moved the cut that much later).
    lag = lag_of(spoken.samples[:cut_at], recording)
    after = recording[lag + cut_at + int(SLACK_S * rate) :]
    assert len(after) > rate  # the recording ran on well past the cut
    assert np.abs(after.astype(np.int32)).max() < LOUD


def test_a_word_reports_its_index_and_the_output_sample_its_audio_starts_at() -> None:
    """The session records each word played with its place in the unit and its sample on the
    speaker leg: the sample is where the word's span starts in the released stream."""
    words: list[tuple[int, str, int]] = []
    sink = MemorySink(RATE)
    playout = PlayoutClock(
        sink,
        on_word=lambda _s, i, text, at: words.append((i, text, at)),
        on_unit_done=lambda _s: None,
    )
    playout.open_unit(1)
    silence = np.zeros(RATE // 10, dtype=np.int16)  # 100 ms of nothing before the unit
    playout.pull(len(silence))
    playout.enqueue(1, clip(100, 1600, (("one", 0, 800), ("two", 800, 1600))))
    playout.end_unit(1)
    for _ in range(4):
        playout.pull(500)
    assert words == [(0, "one", len(silence)), (1, "two", len(silence) + 800)]


class GoneDevice:
    """A sound card that is pulled when the test says, then goes away (never pulls again)."""

    def __init__(self) -> None:
        self.pull: Callable[[int], NDArray[np.int16]] | None = None
        self.closed = False

    @property
    def sample_rate(self) -> int:
        return RATE

    def start(self, pull: Callable[[int], NDArray[np.int16]], block_frames: int) -> None:
        self.pull = pull

    def close(self) -> None:
        self.closed = True


def test_a_device_that_goes_away_is_closed_and_playout_paces_on_silently_from_there() -> None:
    fake, device, events = ThreadClock(), GoneDevice(), Events()
    playout = PlayoutClock(
        device, on_word=events.word, on_unit_done=events.done, on_release=events.release, clock=fake
    )
    playout.enqueue(1, clip(9, 4 * BLOCK, (("one", 0, BLOCK), ("two", 2 * BLOCK, 3 * BLOCK))))
    playout.end_unit(1)
    playout.start()
    assert playout.stalled_s() == 0.0  # not before its first pull
    assert device.pull is not None
    device.pull(BLOCK)
    assert events.words() == [(1, 0, "one")]
    fake.advance(3.0)  # the device stops pulling
    assert playout.stalled_s() == 3.0
    playout.lose_device()
    try:
        assert device.closed
        fake.caught_up()
        fake.advance(0.1)
        fake.caught_up()
        assert playout.stalled_s() == 0.0  # the clock paces itself now
    finally:
        playout.stop()
    assert events.words() == [(1, 0, "one"), (1, 1, "two")] and events.dones() == [1]
    released = np.concatenate(events.released)
    assert (released == 9).sum() == 4 * BLOCK  # every sample released once: none skipped
