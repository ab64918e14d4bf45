"""The heard-text bench's independent word alignment: the warp on made-up frames, and espeak's
word starts warped onto another espeak rendering whose own word starts are known."""

from __future__ import annotations

import numpy as np

from sandbox_bench.espeak_align import (
    HOP,
    RATE,
    cepstra,
    espeak_reference,
    pause_ends,
    warp,
    word_onsets,
)

TEXT = "There's parking behind the building, and the bus stops right outside the front door."


def test_the_warp_follows_a_stretch_and_a_pause() -> None:
    frames = np.random.default_rng(3).normal(size=(40, 12))
    stretched = np.repeat(frames, 2, axis=0)  # every frame held twice as long
    assert list(warp(frames, stretched)) == [2 * i for i in range(40)]
    short = np.concatenate([frames[:25], np.zeros((5, 12)), frames[25:]])
    long = np.concatenate([frames[:25], np.zeros((15, 12)), frames[25:]])  # a longer pause
    matched = warp(short, long)
    assert list(matched[:25]) == list(range(25))
    assert list(matched[30:]) == list(range(40, 55))  # after the pause, in step again


def test_espeak_reports_where_each_word_of_the_text_starts() -> None:
    reference = espeak_reference("Well — yes, we're open.")
    well, dash, yes, were, open_ = reference.starts
    assert dash is None  # spoken as no word
    assert well is not None and yes is not None and were is not None and open_ is not None
    assert well < yes < were < open_ < len(reference.samples)
    slower = espeak_reference("Well — yes, we're open.", wpm=100)
    assert len(slower.samples) > len(reference.samples) * 1.3


def test_word_starts_warp_onto_another_rendering_within_a_few_frames() -> None:
    # A rendering at a rate none of the references use, by a voice one of them uses: its
    # own word events are the truth the warped starts are held to.
    recording = espeak_reference(TEXT, "en-us", 120)
    onsets = word_onsets(recording.samples, recording.sample_rate, TEXT)
    assert len(onsets) == len(TEXT.split())
    errors_ms = [
        abs(onset - truth) * 1000 / recording.sample_rate
        for onset, truth in zip(onsets, recording.starts, strict=True)
        if onset is not None and truth is not None
    ]
    assert len(errors_ms) == len(TEXT.split())
    frame_ms = HOP * 1000 / RATE
    assert max(errors_ms) <= 6 * frame_ms, errors_ms
    assert float(np.mean(errors_ms)) <= 2 * frame_ms, errors_ms


def test_cepstra_are_normalised_per_coefficient_every_five_ms() -> None:
    tone = (np.sin(np.arange(16000) * 0.3) * 8000 * np.linspace(0, 1, 16000)).astype(np.int16)
    ceps = cepstra(tone, 16000)
    assert ceps.shape == (1 + (16000 - 400) // HOP, 12)
    assert np.allclose(ceps.mean(0), 0, atol=1e-9) and np.allclose(ceps.std(0), 1, atol=1e-6)


def test_a_pause_ends_where_the_sound_comes_back_to_the_sample() -> None:
    rate = 16000
    tone = (np.sin(np.arange(3200) * 0.3) * 8000).astype(np.int16)  # 200 ms
    gap = np.zeros(rate * 80 // 1000, np.int16)  # 80 ms: a closure, not a pause
    pause = np.zeros(2403, np.int16)  # ~150 ms, ending off the 5 ms grid
    audio = np.concatenate([tone, gap, tone, pause, tone])
    # The tone's first sample is sin(0) = 0: the sound comes back one sample later.
    assert pause_ends(audio, rate) == [len(tone) * 2 + len(gap) + len(pause) + 1]
    assert pause_ends(np.zeros(10, np.int16), rate) == []
