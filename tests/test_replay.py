"""`sandbox replay`: a saved session in the live app's panes, on a clock the test moves;
the timeline alone; the legs player; and the command in a terminal."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from session_rig import FIXED_ID, fixed_session, recorded_call
from textual.pilot import Pilot
from ui_rig import SIZE, ManualClock
from ui_tmux import sandbox_in_tmux

from sandbox.audio.stt import Transcriber
from sandbox.call.units import Fate
from sandbox.paths import HOME_ENV
from sandbox.record.leg_files import leg_path
from sandbox.record.legs import MIC, SPEAKER
from sandbox.record.session_kinds import CallMode
from sandbox.record.store import SessionStore
from sandbox.record.stored_call import StoredCall
from sandbox.replay.leg_player import LegPlayer
from sandbox.replay.source import open_recording
from sandbox.replay.timeline import Replayer
from sandbox.ui.replay_app import ReplayApp
from sandbox.ui.screens.waterfall import WaterfallScreen
from sandbox.ui.widgets.conversation import Line

SnapCompare = Callable[..., bool]


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    monkeypatch.setenv(HOME_ENV, str(folder))
    return folder


def lines(app: ReplayApp) -> list[str]:
    return [line.text.plain for line in app.conversation.query(Line)]


def fixed_replay(clock: ManualClock) -> ReplayApp:
    fixed_session()
    return ReplayApp(open_recording(FIXED_ID[:6]), banner="Replaying without sound.", clock=clock)


# ------------------------------------------------------------- the timeline


def test_the_view_at_any_moment_forward_and_back() -> None:
    fixed_session()
    with SessionStore() as store:
        replayer = Replayer.of(StoredCall.load(store, store.find(FIXED_ID)))
    assert [m.kind for m in replayer.markers] == ["turn", "barge-in", "turn"]
    replayer.seek(2800)  # two words of the answer played (2550, 2750)
    answer = replayer.view.units[2]
    assert (answer.heard, answer.fate) == ("We open", None)
    replayer.seek(3300)  # the barge-in's Finalize went out
    assert (answer.heard, answer.fate) == ("We open at", Fate.BARGED)
    assert replayer.view.units[1].fate is Fate.PLAYED
    assert replayer.seek(600) is None  # back: rebuilt from the start (words at 150, 350, 550)
    assert list(replayer.view.units) == [1] and replayer.view.units[1].heard == "Hello, how can"
    replayer.seek(99_999)
    assert replayer.view.units[3].fate is Fate.PLAYED and replayer.view.entries[-1] is not None


# --------------------------------------------------------------- the app


async def test_play_pause_seek_next_cut_and_speed() -> None:
    clock = ManualClock()
    app = fixed_replay(clock)
    async with app.run_test(size=SIZE) as pilot:
        assert app.t_ms == 0 and not app.playing
        await pilot.press("space")
        clock.advance(2_100)
        await _ticks(pilot, app)
        assert app.t_ms == 2_100
        assert "you said · turn 2\n  What are your opening hours?" in lines(app)
        await pilot.press("space")  # pause
        clock.advance(5_000)
        await _ticks(pilot, app)
        assert app.t_ms == 2_100
        await pilot.press("n")  # the next stop: the barge-in
        assert app.t_ms == 3_200
        cut = app.conversation.unit_line(2)
        assert cut is not None and "✂ 3 of 7 words heard" in cut.text.plain
        await pilot.press("left")  # back 5 s: the start, panes redrawn
        assert app.t_ms == 0 and lines(app) == []
        await pilot.press("right", "right")
        assert app.t_ms == 6_000 and "■ Call ended" in lines(app)[-1]
        await pilot.press("plus", "plus")
        assert app.speed == 2.0
        await pilot.press("p")  # from the end, back to the last turn
        assert app.t_ms == 4_000
        await pilot.press("space")
        clock.advance(500)  # at 2x: a second of the call
        await _ticks(pilot, app)
        assert app.t_ms == 5_000
        assert max(r.t_ms for r in app.wire.records) <= 5_000
        assert any(r.type == "speech_start" and r.t_ms == 4_500 for r in app.wire.records)


async def test_selecting_a_unit_jumps_to_where_it_opened() -> None:
    clock = ManualClock()
    app = fixed_replay(clock)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to(6_000)
        await pilot.pause()
        app.conversation.focus()
        app.conversation.index = 2  # greeting, caller line, then the answer that was cut
        await pilot.press("enter")
        assert app.t_ms == 2_500
        assert app.wire.marked_unit == 2


def test_a_replay_mid_call_with_a_cut_unit(snap_compare: SnapCompare) -> None:
    clock = ManualClock()

    async def at_the_cut(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, ReplayApp)
        app.go_to(3_500)
        await pilot.pause()

    assert snap_compare(fixed_replay(clock), run_before=at_the_cut, terminal_size=(150, 42))


async def test_a_real_recorded_call_replays_to_its_end() -> None:
    host = await recorded_call()
    app = ReplayApp(open_recording(host.core.session_id[:8]), clock=ManualClock())
    async with app.run_test(size=SIZE) as pilot:
        app.go_to(app.duration_ms)
        await pilot.pause()
        units = app.recording.replayer.view.units
        assert [u.heard for u in units.values()] == [u.heard for u in host.core.units]
        assert [f.type for f in app.wire.records] == [f.type for f in host.recorder.frames]


async def test_a_stop_at_a_decision_shows_the_frames_it_sent_on_a_slow_machine() -> None:
    # Every read of this clock is a millisecond later, as on a loaded machine where storing
    # a decision takes time before its frame goes out.
    reads = itertools.count()

    def creeping() -> float:
        return time.monotonic() + next(reads) / 1000

    host = await recorded_call(wall=creeping)
    app = ReplayApp(open_recording(host.core.session_id[:8]), clock=ManualClock())
    async with app.run_test(size=SIZE) as pilot:
        sent = {"barge-in": "interruption", "turn": "user_message"}
        stops = [m for m in app.recording.replayer.markers if m.kind in sent]
        assert sorted({m.kind for m in stops}) == ["barge-in", "turn"]
        for marker in stops:
            app.go_to(marker.t_ms)
            await pilot.pause()
            last = [r for r in app.wire.records if r.t_ms == marker.t_ms]
            assert sent[marker.kind] in [r.type for r in last], (marker, last)


async def _ticks(pilot: Pilot[Any], app: ReplayApp) -> None:
    app.tick()
    await pilot.pause()


# ---------------------------------------------------------- the legs player


def test_the_player_mixes_the_enabled_legs_from_the_playhead_at_speed() -> None:
    rate = 1000
    mic = (np.full(2000, 8000, dtype=np.int16), rate)
    speaker = (np.full(1000, 16000, dtype=np.int16), rate)
    player = LegPlayer({MIC: mic, SPEAKER: speaker}, rate)
    assert not player.pull(10).any()  # paused: silence
    player.playing = True
    both = player.pull(10)
    assert abs(int(both[0]) - 24000 * 32767 // 32768) <= 1 and player.position_ms == 10
    player.toggle(SPEAKER)
    assert abs(int(player.pull(10)[0]) - 8000) <= 1
    player.seek(1500)
    player.speed = 2.0
    player.pull(100)
    assert player.position_ms == 1700  # 100 samples at 2x
    player.seek(5000)
    assert player.position_ms == 2000 and not player.pull(10).any()  # past the end


# ------------------------------------------------- in a terminal, with sound


@pytest.mark.audio
@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_a_real_audio_session_replays_with_its_sound_in_a_terminal(
    pulse: ModuleType, home: Path, tmp_path: Path, transcriber: Transcriber
) -> None:
    """Record a real-audio call, then `sandbox replay` it in tmux on PulseAudio: the panes
    play through, and Whisper finds the bot's words in what the virtual speaker emitted.
    The call is the greeting alone: a spoken turn would double the call and the replay for
    nothing more (mixing the caller's leg in:
    test_the_player_mixes_the_enabled_legs_from_the_playhead_at_speed)."""
    script = tmp_path / "s.toml"
    script.write_text("[[step]]\nend = true\n")
    env = {HOME_ENV: str(home), **pulse.env()}
    call = subprocess.run(
        [sys.executable, "-m", "sandbox.cli", "call", "--audio", "real", "--speaker", "none",
         "--script", str(script), "--idle-ms", "0"],
        capture_output=True, text=True, env={**os.environ, **env}, timeout=180,
    )  # fmt: skip
    assert call.returncode == 0, call.stderr
    with SessionStore() as store:
        (row,) = store.sessions()
    heard = tmp_path / "speaker.wav"
    with (
        pulse.record_speaker(heard, rate=16000),
        sandbox_in_tmux(["replay", row.id[:8]], env) as term,
    ):
        term.wait_for(lambda s: "paused" in s and "Replaying without sound" not in s, "the replay")
        term.keys("space")
        screen = term.wait_for(lambda s: "■ Call ended" in s, "the end of the call", 120)
        assert "bot · unit 1 · turn 1 · greeting · played" in screen, screen
        term.keys("C-q")
        term.wait_for(lambda s: "EXIT=0" in s, "the replay to quit")
    samples, _rate = pulse.read_wav(heard)  # recorded at 16 kHz, as Whisper takes it
    text = transcriber.transcribe(samples.astype(np.float32) / 32768).text.lower()
    assert "opening hours" in text or "harbour" in text, text


def test_a_damaged_leg_replays_silently_and_says_why(home: Path) -> None:
    fixed_session(mode=CallMode.AUDIO)
    leg = leg_path(FIXED_ID, MIC)
    leg.parent.mkdir(parents=True)
    leg.write_bytes(b"not audio")
    recording = open_recording(FIXED_ID[:6])
    assert recording.legs == {} and recording.no_audio is not None
    assert "cannot be read" in recording.no_audio and "mic.wav" in recording.no_audio
    assert len(recording.replayer.moments) > 0  # the rest of the session is all there


async def test_the_waterfall_at_each_turn_shows_that_turns_stages_up_to_the_playhead() -> None:
    host = await recorded_call()
    timelines = host.core.ledger.timelines
    app = ReplayApp(open_recording(host.core.session_id[:8]), clock=ManualClock())
    async with app.run_test(size=SIZE) as pilot:
        for turn_id, timeline in timelines.items():
            stages = list(timeline.items())
            (first, at), (last, end) = stages[0], stages[-1]
            app.go_to(end)
            await pilot.press("w")
            shown = app.screen
            assert isinstance(shown, WaterfallScreen)
            assert (shown.turn_id, shown.timeline) == (turn_id, dict(timeline))
            assert f"turn {turn_id}" in str(shown.view.render())
            await pilot.press("w")  # closes it
            assert not isinstance(app.screen, WaterfallScreen)
            app.go_to(at)  # only as far as the turn had got then
            await pilot.press("w")
            assert isinstance(app.screen, WaterfallScreen)
            assert app.screen.turn_id == turn_id and first in app.screen.timeline
            assert last not in app.screen.timeline or at == end
            await pilot.press("escape")
        app.go_to(0)
        await pilot.press("w")
        assert isinstance(app.screen, WaterfallScreen) and app.screen.turn_id is None
