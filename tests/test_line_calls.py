"""Calls on a phone line, through the real parts: the caller's voice (espeak-ng) spoken into
the microphone path crosses the line's uplink to the endpointer and Whisper; the bot's
(Piper) crosses its downlink to the speaker. On ``pstn`` a turn is answered and a barge-in
lands, what PulseAudio's virtual speaker played and the speaker leg carry no energy above
4 kHz, the session says its line and its turn's waterfall the network's stages; on each
lossy line a turn spoken into the virtual microphone is answered, and wherever the downlink
lost the bot's speech the virtual speaker still sounded: the codec concealed it;
``sandbox test`` plays a script whose ``line`` is ``pstn`` with sound, and refuses it
without."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import msgspec
import numpy as np
import numpy.typing as npt
import pytest
from audio_rig import audio_call, caller_wav, quiet, until
from cli_rig import sandbox_cli
from line_rig import longest_silence_ms, unconcealed_silence_ms
from ui_rig import SIZE, ManualClock

from sandbox.audio.engine import EngineHooks
from sandbox.audio.line_path import DOWNLINK_SEED, LinePath
from sandbox.audio.stt import Transcriber
from sandbox.audio.tts import Synthesizer
from sandbox.call.waterfall import STAGES
from sandbox.line.profile import FRAME_MS, PROFILES, LineProfile
from sandbox.paths import HOME_ENV
from sandbox.record.leg_files import leg_path
from sandbox.record.legs import SPEAKER, read_leg
from sandbox.replay.source import open_recording
from sandbox.ui.replay_app import ReplayApp

pytestmark = pytest.mark.audio

BARGE_IN = """
[[step]]
say = "What are your opening hours?"
[[step]]
barge_in = "Sorry, how much is a class?"
after_words = 6
[[step]]
end = true
"""
TESTED = """
line = "pstn"
[[step]]
say = "What are your opening hours?"
expect = { heard_contains = "weekdays", no_errors = true }
"""


def _report(home: Path) -> dict[str, object]:
    (path,) = (home / "sessions").glob("*.json")
    report: dict[str, object] = json.loads(path.read_text())
    return report


def _above_4khz(samples: npt.NDArray[np.int16], rate: int) -> float:
    """The share of a recording's energy above 4 kHz."""
    spectrum = np.abs(np.fft.rfft(samples.astype(np.float64))) ** 2
    hz = np.fft.rfftfreq(len(samples), 1 / rate)
    return float(spectrum[hz > 4000].sum() / spectrum.sum())


def test_a_landline_call_is_answered_cut_and_band_limited(
    pulse: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot heard through PulseAudio's virtual speaker, its monitor recorded."""
    home = tmp_path / "home"
    script = tmp_path / "call.toml"
    script.write_text(BARGE_IN)
    command = [sys.executable, "-m", "sandbox.cli", "call", "--audio", "real", "--line", "pstn"]
    env = {**os.environ, HOME_ENV: str(home), **pulse.env()}
    with pulse.record_speaker(tmp_path / "heard.wav") as heard:
        called = subprocess.run(
            [*command, "--script", str(script)],
            capture_output=True, text=True, env=env, timeout=300,
        )  # fmt: skip
    assert called.returncode == 0, called.stdout + called.stderr
    played, played_rate = pulse.read_wav(heard)
    assert np.abs(played).max() > 3000  # the bot was heard at the speaker
    assert _above_4khz(played, played_rate) < 1e-3
    report = _report(home)
    assert report["line"] == "pstn: G.711 μ-law 8 kHz, 300 to 3400 Hz, 40 ms one way"
    # The same line as values, read back as the profile the call was on.
    assert msgspec.convert(report["line_profile"], LineProfile) == PROFILES["pstn"]
    config = report["config"]
    assert isinstance(config, dict)
    assert config["tts_language"] == config["stt_language"] == "LANGUAGE_EN"
    units = report["units"]
    assert isinstance(units, list)
    assert any("weekdays" in str(u["generated"]) for u in units)  # the hours, understood
    assert any(u["interrupted"] for u in units)  # the barge-in landed through the line
    # The waterfall's network stages: the caller stopped at their mouth, and first heard the
    # reply at their ear, the line's delay either side of the runtime's own moments.
    turns = report["turns"]
    assert isinstance(turns, list)
    timeline = turns[0]["timeline"]
    delay = PROFILES["pstn"].path_delay_ms
    assert timeline["caller_voice_end"] == timeline["voice_end"] - delay
    assert timeline["first_at_ear"] == timeline["first_speaker"] + delay
    assert list(timeline) == [stage for stage in STAGES if stage in timeline]
    monkeypatch.setenv(HOME_ENV, str(home))
    samples, rate = read_leg(leg_path(str(report["session_id"]), SPEAKER))
    assert _above_4khz(samples, rate) < 1e-3  # the leg: the bot as the caller heard it
    shown = sandbox_cli(home, "sessions", "show", str(report["session_id"])[:8])
    assert "  line pstn: G.711 μ-law 8 kHz" in shown.stdout
    title = asyncio.run(_replay_title(str(report["session_id"])[:8]))
    assert f"· line {report['line']} ·" in title  # the replay's header says it too


async def _replay_title(session: str) -> str:
    """The replay app's header line for ``session``, silent (no player)."""
    app = ReplayApp(open_recording(session), clock=ManualClock())
    async with app.run_test(size=SIZE):
        return str(app.sub_title)


def test_sandbox_test_plays_a_scripts_line_with_sound_and_refuses_it_without(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    (tmp_path / "test_on_the_phone.toml").write_text(TESTED)
    silent = sandbox_cli(home, "test", str(tmp_path))
    assert silent.returncode == 1
    assert "shapes the call's sound: run it with --audio real" in silent.stdout
    tested = sandbox_cli(home, "test", str(tmp_path), "--audio", "real", timeout=300)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "1 passed, 0 failed, 0 broken" in tested.stdout


#: Speech: the 20 ms the downlink decoded before a loss were louder than this.
SPEECH = 1000
#: How much of the stream either side of a loss is looked for in the recording.
AROUND_MS = 150
#: How closely the recording's loudness must follow a stretch of the stream to be it.
LIKE = 0.9
#: A hole: under -60 dBFS. A loss with no concealment is digital silence at the speaker; a
#: concealing codec fades out over a long burst (Opus by design, within some 40 ms), quieter
#: than 1 % of full scale well before it is gone, but sound all the same.
HOLE = 33


@pytest.mark.parametrize("name", ["mobile", pytest.param("voip-lossy", marks=pytest.mark.slow)])
async def test_a_lossy_line_conceals_at_the_speaker_what_it_lost_of_the_bots_speech(
    pulse: ModuleType,
    transcriber: Transcriber,
    synthesizer: Synthesizer,
    tmp_path: Path,
    name: str,
) -> None:
    """The bot's speech crosses the line's downlink, losing packets where its seeded losses
    fall; PulseAudio's virtual speaker is recorded. Each loss inside the bot's speech is found
    in the recording, where an unconcealed one would leave a hole nearly as long as itself
    (G.711's, tests/test_line.py): the codec's concealment leaves a shorter one, or none."""
    profile = PROFILES[name]
    wav = caller_wav(tmp_path, "What are your opening hours?")
    given: list[npt.NDArray[np.int16]] = []  # each block the speaker was given, in order
    hooks = EngineHooks(released=(lambda block, _rate: given.append(block.copy()),))
    with pulse.record_speaker(tmp_path / "heard.wav", synthesizer.sample_rate) as heard:
        call = audio_call("concierge", transcriber, synthesizer, hooks=hooks, line=profile)
        async with call as (host, _engine, _effects):
            await until(quiet(host), 60)  # the greeting played out
            await asyncio.to_thread(pulse.play_into_mic, wav)
            await until(
                lambda: len(host.core.units) == 2 and host.core.units[1].fate is not None, 60
            )
            # Its last words still cross the line, then the speaker's buffer.
            await asyncio.sleep(profile.path_delay_ms / 1000 + 0.5)
    reply = host.core.units[1]
    assert "weekdays" in reply.generated, host.core.ledger.caller_lines  # the hours, understood
    assert reply.heard == reply.generated  # played whole
    rate = synthesizer.sample_rate
    stream = np.concatenate(given)
    recorded, recorded_rate = pulse.read_wav(heard)
    assert recorded_rate == rate
    around = rate * AROUND_MS // 1000
    checked = []
    for first, last in _bursts(profile, rate, len(stream)):
        start = rate * (profile.path_delay_ms + FRAME_MS * first) // 1000
        end = rate * (profile.path_delay_ms + FRAME_MS * (last + 1)) // 1000
        if start < around or end + around > len(stream):
            continue
        if np.abs(stream[start - rate // 50 : start]).max() < SPEECH:
            continue  # not inside the bot's speech
        at = _found(stream[start - around : end + around], recorded, rate)
        if at is None:
            continue  # the speaker ran dry around it: what it played there is not the stream
        at += around
        silent = longest_silence_ms(recorded[at : at + end - start], rate, HOLE)
        checked.append((first, last - first + 1, silent))
    assert len(checked) >= 3, checked  # losses fell inside the bot's speech, and were found
    assert all(silent < unconcealed_silence_ms(count) for _at, count, silent in checked), checked


def _bursts(profile: LineProfile, rate: int, samples: int) -> list[tuple[int, int]]:
    """The packets the call's downlink lost, as (first, last) of each burst: its losses are
    seeded, so a fresh path of the same line loses the same ones."""
    losses = LinePath(profile, rate, DOWNLINK_SEED).losses
    lost = [losses.next_lost() for _ in range(samples * 1000 // rate // FRAME_MS)]
    bursts: list[tuple[int, int]] = []
    for k, gone in enumerate(lost):
        if gone and bursts and bursts[-1][1] == k - 1:
            bursts[-1] = (bursts[-1][0], k)
        elif gone:
            bursts.append((k, k))
    return bursts


def _found(
    excerpt: npt.NDArray[np.int16], recorded: npt.NDArray[np.int16], rate: int
) -> int | None:
    """Where the recording holds ``excerpt`` of the speaker's stream, looked for in all of
    it: a speaker that ran dry (a loaded machine) plays what follows later than it was given.
    None where it ran dry inside the excerpt: no place's loudness, ms by ms, follows the
    excerpt's (its waveform would not do: PulseAudio's resampling moves the highs' phase)."""
    signal = recorded.astype(np.float64)
    size = 1 << int(np.ceil(np.log2(len(recorded) + len(excerpt))))
    places = len(recorded) - len(excerpt) + 1
    fit = np.fft.irfft(
        np.fft.rfft(signal, size) * np.conj(np.fft.rfft(excerpt.astype(np.float64), size)), size
    )[:places]
    # Normalized by the recording's own energy at each place, so that a louder stretch
    # elsewhere never wins over the one that holds the excerpt.
    energy = np.concatenate([[0.0], np.cumsum(signal**2)])
    at = int(np.argmax(fit / np.sqrt(energy[len(excerpt) :] - energy[:places] + 1.0)))
    ms = rate // 1000
    loud = [
        np.abs(part[: len(excerpt) // ms * ms].astype(np.float64)).reshape(-1, ms).mean(axis=1)
        for part in (excerpt, recorded[at : at + len(excerpt)])
    ]
    likeness = float(loud[0] @ loud[1] / (np.linalg.norm(loud[0]) * np.linalg.norm(loud[1])))
    return at if likeness > LIKE else None
