"""Calls on a phone line, through the real parts: the caller's voice (espeak-ng) spoken into
the microphone path crosses the line's uplink to the endpointer and Whisper; the bot's
(Piper) crosses its downlink to the speaker. On ``pstn`` a turn is answered and a barge-in
lands, what PulseAudio's virtual speaker played and the speaker leg carry no energy above
4 kHz, and the session says its line;
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

import numpy as np
import numpy.typing as npt
import pytest
from cli_rig import sandbox_cli
from ui_rig import SIZE, ManualClock

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
    units = report["units"]
    assert isinstance(units, list)
    assert any("weekdays" in str(u["generated"]) for u in units)  # the hours, understood
    assert any(u["interrupted"] for u in units)  # the barge-in landed through the line
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
