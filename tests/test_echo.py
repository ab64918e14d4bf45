"""The echo canceller on a simulated laptop echo path, and the resampler under it."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from caller_audio import BOT_VOICE, espeak, join, silence

from sandbox.audio.echo_canceller import EchoCanceller
from sandbox.audio.echo_path import LaptopEchoPath
from sandbox.audio.resample import Float32, StreamResampler, as_int16, resample
from sandbox.audio.vad import FrameVad

BOT_RATE = 22050  # Piper's rate: what playout releases
MIC_RATE = 48000  # a laptop microphone
BOT_TEXT = (
    "Thanks for calling. I can help you book a table, change a reservation, or answer "
    "questions about our menu. We are open from noon until eleven every day except Monday."
)


def db(x: npt.NDArray[np.floating[Any]]) -> float:
    return float(10 * np.log10(np.mean(np.square(x, dtype=np.float64)) + 1e-12))


def laptop_echo(bot: Float32, *, delay_ms: int, gain: float) -> Float32:
    """The whole of the bot's speech as the laptop microphone hears it, at MIC_RATE."""
    path = LaptopEchoPath(MIC_RATE, delay_ms=delay_ms, gain=gain)
    return path.step(resample(bot, BOT_RATE, MIC_RATE))


def run_call(canceller: EchoCanceller, bot: Float32, mic: Float32, block_ms: int = 20) -> Float32:
    """Playout and capture in step: each block of reference, then the same block of mic."""
    ref_block, mic_block = BOT_RATE * block_ms // 1000, MIC_RATE * block_ms // 1000
    out = []
    for i in range(len(mic) // mic_block):
        canceller.feed_reference(bot[i * ref_block : (i + 1) * ref_block], BOT_RATE)
        out.append(canceller.process(mic[i * mic_block : (i + 1) * mic_block], MIC_RATE))
    return np.concatenate(out)


def voiced_fraction(pcm16k: Float32) -> float:
    vad = FrameVad()
    n = len(pcm16k) // 480
    return sum(vad.is_speech(as_int16(pcm16k[i * 480 : (i + 1) * 480])) for i in range(n)) / n


@pytest.fixture(scope="module")
def bot() -> Float32:
    speech = espeak(BOT_TEXT, voice=BOT_VOICE, wpm=175)
    return resample(speech, 16000, BOT_RATE)


@pytest.mark.parametrize(("delay_ms", "gain"), [(30, 0.5), (80, 0.25), (60, 0.1)])
def test_echo_is_reduced_by_more_than_20_db(bot: Float32, delay_ms: int, gain: float) -> None:
    mic = laptop_echo(bot, delay_ms=delay_ms, gain=gain)
    cleaned = run_call(EchoCanceller(), bot, mic)
    echo16k = resample(mic, MIC_RATE, 16000)[: len(cleaned)]
    settled = slice(len(cleaned) // 3, None)  # AEC3 converges within the first second or so
    reduction = db(echo16k[settled]) - db(cleaned[settled])
    assert reduction > 20, f"echo reduced by only {reduction:.1f} dB"
    assert voiced_fraction(echo16k) > 0.5  # the echo alone would keep the VAD busy...
    assert voiced_fraction(cleaned) < 0.1  # ...cleaned, it reads as speech on few frames


def test_the_callers_voice_survives_double_talk(bot: Float32) -> None:
    """Caller and bot at once, the echo ~4 dB below the caller's voice at the microphone.

    AEC3's suppressor favours removing echo: with the echo louder than the caller it keeps
    only ~20% of the caller's voiced frames, so a barge-in over a loud speaker is hard.
    """
    caller = espeak("Sorry, can I change the time of my booking?")
    mic = laptop_echo(bot, delay_ms=50, gain=0.1)
    start = 3 * MIC_RATE
    near = resample(caller, 16000, MIC_RATE) * 0.5
    mic[start : start + len(near)] += near
    cleaned = run_call(EchoCanceller(), bot, mic)
    at = slice(3 * 16000, 3 * 16000 + len(caller))
    assert voiced_fraction(cleaned[at]) > 0.5 * voiced_fraction(caller)


def test_no_reference_and_no_echo_leaves_the_caller_alone() -> None:
    caller = join(silence(500), espeak("I would like to book a table for two."), silence(500))
    mic = resample(caller, 16000, MIC_RATE)
    canceller = EchoCanceller()
    cleaned = np.concatenate(
        [canceller.process(mic[i : i + 480], MIC_RATE) for i in range(0, len(mic), 480)]
    )
    assert abs(db(cleaned) - db(caller[: len(cleaned)])) < 6  # noise suppression takes ~4 dB
    assert voiced_fraction(cleaned) > 0.8 * voiced_fraction(caller)


def test_disabled_only_resamples(bot: Float32) -> None:
    mic = laptop_echo(bot, delay_ms=50, gain=0.5)
    cleaned = run_call(EchoCanceller(enabled=False), bot, mic)
    expected = resample(mic, MIC_RATE, 16000)
    assert np.allclose(cleaned, expected[: len(cleaned)], atol=1e-6)


def test_output_is_in_whole_10_ms_frames_at_16k() -> None:
    canceller = EchoCanceller()
    sizes = [len(canceller.process(np.zeros(n, dtype=np.float32), 44100)) for n in (100, 300, 441)]
    assert sizes == [0, 0, 160]  # 841 samples at 44.1 kHz are 19 ms: one whole frame so far
    assert len(canceller.process(np.zeros(441, dtype=np.float32), 44100)) == 160


# The resampler under the canceller.


@pytest.mark.parametrize(
    ("src", "dst"), [(48000, 16000), (44100, 16000), (22050, 16000), (16000, 48000)]
)
def test_resampling_keeps_a_tone_and_its_level(src: int, dst: int) -> None:
    t = np.arange(src) / src
    out = resample((0.5 * np.sin(2 * np.pi * 1000 * t)).astype(np.float32), src, dst)
    assert len(out) == dst
    expected = 0.5 * np.sin(2 * np.pi * 1000 * np.arange(dst) / dst)
    inner = slice(100, -100)
    error_db = db((out - expected)[inner]) - db(expected[inner])
    assert error_db < -60


@pytest.mark.parametrize("src", [48000, 44100, 22050])
def test_resampling_down_rejects_what_16k_cannot_hold(src: int) -> None:
    t = np.arange(src) / src
    alias = resample((0.5 * np.sin(2 * np.pi * 9500 * t)).astype(np.float32), src, 16000)
    assert db(alias[100:-100]) < db(np.full(10, 0.35)) - 60


def test_streaming_in_any_blocks_equals_resampling_at_once() -> None:
    rng = np.random.default_rng(5)
    signal = rng.standard_normal(30000).astype(np.float32) * 0.1
    stream = StreamResampler(44100, 16000)
    parts, i = [], 0
    while i < len(signal):
        n = int(rng.integers(1, 3000))
        parts.append(stream.push(signal[i : i + n]))
        i += n
    parts.append(stream.flush())
    assert np.array_equal(np.concatenate(parts), resample(signal, 44100, 16000))


def test_int16_in_float32_out() -> None:
    out = resample(np.full(4800, 16384, dtype=np.int16), 48000, 16000)
    assert out.dtype == np.float32
    assert np.allclose(out[50:-50], 0.5, atol=1e-3)
