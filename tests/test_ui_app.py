"""The app's key paths, driven by a pilot against the built-in brain over a real WebSocket.

Typed mode: the caller types, and replies play on the simulated clock at a fast rate.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Input, Select
from ui_rig import (
    SIZE,
    connected,
    greeted,
    host_of,
    line_texts,
    make_app,
    say,
    unit,
    use_home,
    wait_until,
)

from sandbox.call.caller_events import Backchannel, BotResumes, OverBot
from sandbox.call.effects import CallState
from sandbox.call.units import Fate
from sandbox.call.waterfall import STAGES, from_start, slowest_stage, summary
from sandbox.ui.screens.help import HelpScreen
from sandbox.ui.screens.rtvi import RtviScreen
from sandbox.ui.screens.settings import SettingsScreen
from sandbox.ui.widgets.status import status_text
from sandbox.wire import pb


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_home(monkeypatch, tmp_path)


async def test_greeting_plays_and_a_typed_turn_is_answered() -> None:
    app = make_app(ms_per_word=20)
    async with app.run_test(size=SIZE) as pilot:
        await greeted(pilot)
        greeting = unit(app, 1)
        assert greeting.fate is Fate.PLAYED and greeting.heard == greeting.generated
        await say(pilot, "what are your prices")
        await wait_until(pilot, lambda: len(host_of(app).core.units) >= 2, "the reply")
        await wait_until(pilot, lambda: unit(app, 2).fate is Fate.PLAYED, "the reply to play")

        lines = line_texts(app)
        assert any(t.startswith("bot · unit 1 · turn 1 · greeting · played") for t in lines)
        assert "you typed · turn 2\n  what are your prices" in lines
        assert any(t.startswith("bot · unit 2 · turn 2 · played") for t in lines)
        assert app.query_one("#say", Input).value == ""
        # The brain's tool put the prices on the screen: a ui-command in the app pane.
        assert any(
            "brain → app ui-command" in s and "pricing" in s for s in app.app_pane.lines_shown
        )
        types = [(str(r.dir), str(r.type)) for r in app.wire.records]
        assert types[0] == ("out", "session_start")
        assert ("out", "user_message") in types and ("in", "rtvi") in types
        assert types.count(("out", "finalize")) == 2
        # The status line's figure is the timeline's, as f7 draws it: one number per turn.
        timeline = host_of(app).core.ledger.timelines[2]
        assert app.status.info.latency == summary(2, timeline)
        assert f"first audio {from_start(timeline)['first_sample']} ms" in summary(2, timeline)
        slowest = slowest_stage(timeline)  # the stage the turn spent its time in, named
        assert slowest is not None and app.status.info.latency.endswith(
            f" · slowest: {STAGES[slowest[0]]} +{slowest[1]}"
        )
        assert app.status.info.state is CallState.LISTENING


async def test_barge_in_key_cuts_the_unit_and_the_box_is_the_new_turn() -> None:
    app = make_app(ms_per_word=100)
    async with app.run_test(size=SIZE) as pilot:
        await greeted(pilot)
        await say(pilot, "what are your prices")
        await wait_until(pilot, lambda: len(host_of(app).core.units) >= 2, "the reply")
        await wait_until(pilot, lambda: unit(app, 2).cursor.words_heard >= 3, "3 words heard")
        app.query_one("#say", Input).value = "and the hours?"
        await pilot.press("f2")
        await wait_until(pilot, lambda: unit(app, 2).fate is Fate.BARGED, "the cut")

        cut = unit(app, 2)
        total = len(cut.generated.split())
        assert 3 <= cut.cursor.words_heard < total
        entry = app.conversation.unit_line(2)
        assert entry is not None
        assert f"✂ {cut.cursor.words_heard} of {total} words heard" in entry.text.plain
        assert "cut by a barge-in" in entry.text.plain
        assert any(t.startswith("you typed · turn 3\n  and the hours?") for t in line_texts(app))
        interruption = [r for r in app.wire.records if r.type == "interruption"]
        assert interruption and interruption[0].fields["through_turn"] == 2
        await wait_until(pilot, lambda: app.status.info.watermark == 2, "the watermark shown")
        # The cut unit's Finalize carries exactly the heard prefix.
        fin = [r for r in app.wire.records if r.type == "finalize" and r.fields["speech_id"] == 2]
        assert fin[0].fields.get("heard_text", "") == cut.heard


async def test_barge_in_with_an_empty_box_hands_the_floor_to_the_caller() -> None:
    app = make_app(ms_per_word=100)
    async with app.run_test(size=SIZE) as pilot:
        await greeted(pilot)
        await say(pilot, "what are your opening hours")
        await wait_until(pilot, lambda: len(host_of(app).core.units) >= 2, "the reply")
        await wait_until(pilot, lambda: unit(app, 2).cursor.words_heard >= 2, "2 words heard")
        await pilot.press("f2")
        await wait_until(
            pilot, lambda: app.status.info.state is CallState.INTERRUPTED, "interrupted"
        )
        assert unit(app, 2).fate is Fate.BARGED
        await say(pilot, "where are you")
        await wait_until(pilot, lambda: len(host_of(app).core.units) >= 3, "the next reply")
        assert unit(app, 3).turn_id == 3


async def test_a_voice_over_the_bot_shows_paused_deciding_then_the_bot_goes_on() -> None:
    app = make_app(ms_per_word=100)
    async with app.run_test(size=SIZE) as pilot:
        await greeted(pilot)
        await say(pilot, "what are your opening hours")
        await wait_until(pilot, lambda: len(host_of(app).core.units) >= 2, "the reply")
        await wait_until(pilot, lambda: unit(app, 2).cursor.words_heard >= 2, "2 words heard")
        host = host_of(app)
        host.heard(OverBot(t_onset=host.now(), t=host.now()))  # as the listener says it
        await wait_until(pilot, lambda: app.status.info.state == "paused: deciding", "paused")
        assert status_text(app.status.info).plain.startswith("● paused: deciding")
        held = unit(app, 2).cursor.words_heard
        await pilot.pause(0.5)
        assert unit(app, 2).cursor.words_heard == held  # nothing plays while deciding
        host.heard(BotResumes(host.now(), host.now(), "backchannel", "okay"))
        host.heard(Backchannel("okay", host.now(), host.now(), resumed=True))
        await wait_until(pilot, lambda: unit(app, 2).fate is Fate.PLAYED, "played out")
        assert unit(app, 2).heard == unit(app, 2).generated
        assert not [r for r in app.wire.records if r.type == "interruption"]
        assert any(
            t.startswith("you (backchannel: the bot paused, then went on)\n  okay")
            for t in line_texts(app)
        )


async def test_selecting_a_unit_marks_its_frames_and_a_row_shows_the_whole_frame() -> None:
    app = make_app(ms_per_word=20)
    async with app.run_test(size=SIZE) as pilot:
        await greeted(pilot)
        line = app.conversation.unit_line(1)
        assert line is not None
        app.conversation.focus()
        app.conversation.index = app.conversation.children.index(line)
        await wait_until(pilot, lambda: app.wire.marked_unit == 1, "unit 1 marked")
        marked = app.wire.marked_rows()
        assert {r.type for r in marked} == {
            "speech_start",
            "speech_chunk",
            "speech_end",
            "finalize",
        }
        assert all(r.fields["speech_id"] == 1 for r in marked)
        # The table's cursor went to the unit's first frame; its detail is the whole frame.
        detail = str(app.query_one("#wire-detail").render())
        assert json.loads(detail) == marked[0].as_json()


async def test_the_wire_filter_keeps_only_the_types_asked_for() -> None:
    app = make_app(ms_per_word=20)
    async with app.run_test(size=SIZE) as pilot:
        await greeted(pilot)
        await pilot.press("f6")
        assert app.focused is app.query_one("#wire-filter")
        await pilot.press(*"finalize")
        await wait_until(pilot, lambda: app.wire.table.row_count == 1, "one finalize row")
        assert [r.type for r in app.wire.shown_records()] == ["finalize"]
        app.query_one("#wire-filter", Input).value = "-speech_chunk"
        await pilot.pause()
        shown = app.wire.shown_records()
        assert shown and all(r.type != "speech_chunk" for r in shown)
        assert app.wire.table.row_count == len(shown)


async def test_settings_change_patience_and_idle_mid_call() -> None:
    app = make_app(ms_per_word=20)
    async with app.run_test(size=SIZE) as pilot:
        await greeted(pilot)
        await pilot.press("f4")
        await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen), "settings")
        app.screen.query_one("#patience", Input).value = "3"
        app.screen.query_one("#idle", Input).value = "0"
        await pilot.click("#apply")
        core = host_of(app).core
        await wait_until(pilot, lambda: core.settings.patience == 3, "patience 3")
        assert core.settings.idle_ms == 0
        await wait_until(pilot, lambda: "patience 3 · idle off" in app.status.info.config, "shown")


async def test_a_config_the_call_refuses_is_shown_in_words_and_changes_nothing() -> None:
    app = make_app(ms_per_word=20)
    async with app.run_test(size=SIZE) as pilot:
        await greeted(pilot)
        before = host_of(app).core.settings
        await pilot.press("f4")
        await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen), "settings")
        app.screen.query_one("#voice", Select).value = pb.VOICE_THORSTEN
        app.screen.query_one("#patience", Input).value = "4"
        await pilot.click("#apply")
        await wait_until(
            pilot, lambda: any("config rejected" in t for t in line_texts(app)), "the refusal"
        )
        refusal = next(t for t in line_texts(app) if "config rejected" in t)
        assert "voice thorsten is not installed here" in refusal
        assert host_of(app).core.settings == before  # rejected whole
        assert any("config rejected" in str(n.message) for n in app._notifications)


async def test_an_app_frame_crosses_to_the_brain() -> None:
    app = make_app(ms_per_word=20)
    async with app.run_test(size=SIZE) as pilot:
        await greeted(pilot)
        await pilot.press("f5")
        await wait_until(pilot, lambda: isinstance(app.screen, RtviScreen), "the frame form")
        app.screen.query_one("#rtvi-type", Select).value = "client-message"
        app.screen.query_one("#rtvi-data", Input).value = '{"t": "hello"}'
        app.screen.query_one("#rtvi-id", Input).value = "m1"
        await pilot.click("#send")
        await wait_until(
            pilot, lambda: any(r.type == "rtvi" for r in app.wire.records), "the frame out"
        )
        sent = next(r for r in app.wire.records if r.type == "rtvi")
        assert sent.dir == "out" and sent.fields["type"] == "RTVI_TYPE_CLIENT_MESSAGE"
        assert sent.fields["data"] == '{"t": "hello"}' and sent.fields["id"] == "m1"
        assert app.app_pane.lines_shown[-1] == 'app → brain client-message id=m1 {"t": "hello"}'


async def test_an_app_frame_that_is_not_json_is_refused_in_the_form() -> None:
    app = make_app(ms_per_word=20)
    async with app.run_test(size=SIZE) as pilot:
        await greeted(pilot)
        await pilot.press("f5")
        await wait_until(pilot, lambda: isinstance(app.screen, RtviScreen), "the frame form")
        app.screen.query_one("#rtvi-data", Input).value = "{not json"
        await pilot.click("#send")
        assert isinstance(app.screen, RtviScreen)
        error = str(app.screen.query_one("#rtvi-error").render())
        assert error.startswith("data is not valid JSON")
        await pilot.press("escape")
        assert not any(r.type == "rtvi" for r in app.wire.records)


async def test_mute_in_typed_mode_says_there_is_no_microphone() -> None:
    app = make_app(ms_per_word=20)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await pilot.press("f3")
        await pilot.pause()
        assert any("no microphone to mute" in str(n.message) for n in app._notifications)
        assert app.status.info.meter == "mic: typed mode"
        assert "Typed mode, no sound" in str(app.query_one("#banner").render())


async def test_the_banner_says_each_legs_language_when_a_leg_is_not_english() -> None:
    hindi = make_app(
        ms_per_word=20,
        voice=pb.VOICE_ESPEAK_MALE,
        tts_language=pb.LANGUAGE_HI,
        stt_language=pb.LANGUAGE_HI,
    )
    async with hindi.run_test(size=SIZE) as pilot:
        await connected(pilot)
        shown = str(hindi.query_one("#banner").render())
        assert "Typed mode, no sound" in shown
        assert "starts spoken in hi (voice espeak_male) and heard in hi" in shown
    english = make_app(ms_per_word=20)
    async with english.run_test(size=SIZE) as pilot:
        await connected(pilot)
        assert "starts spoken in" not in str(english.query_one("#banner").render())


async def test_help_screen_lists_the_keys() -> None:
    app = make_app(ms_per_word=20)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_idle_turn_is_shown_with_the_brains_nudge() -> None:
    app = make_app(ms_per_word=20, idle_ms=300)
    async with app.run_test(size=SIZE) as pilot:
        await greeted(pilot)
        await wait_until(
            pilot, lambda: any(t.startswith("idle · turn 2") for t in line_texts(app)), "idle"
        )
        await wait_until(pilot, lambda: len(host_of(app).core.units) >= 2, "the nudge")
        assert unit(app, 2).turn_id == 2
        await wait_until(pilot, lambda: unit(app, 2).fate is Fate.PLAYED, "the nudge to play")
        assert "still there" in unit(app, 2).heard


async def test_end_call_key_writes_the_report_and_shows_its_path() -> None:
    app = make_app(ms_per_word=20)
    async with app.run_test(size=SIZE) as pilot:
        await greeted(pilot)
        await pilot.press("f10")
        await wait_until(pilot, lambda: app.report is not None, "the report")
        await pilot.pause()
        lines = line_texts(app)
        assert "■ Call ended: you ended the call. Outcome: " in lines[-3]
        assert lines[-2].startswith("┌ The call record\n│ outcome ")  # the card, then the path
        assert lines[-1] == f"report: {app.report}"
        assert app.query_one("#say", Input).disabled
        assert app.status.info.state is CallState.ENDED
        assert app.report is not None
        report = json.loads(app.report.read_text())
        assert report["ended_by"] == "caller" and report["frames"][-1]["type"] == "end"
        assert report["session_id"] == host_of(app).core.session_id


async def test_quit_ends_a_live_call_and_returns_the_report() -> None:
    app = make_app(ms_per_word=20)
    async with app.run_test(size=SIZE) as pilot:
        await greeted(pilot)
        await pilot.press("ctrl+q")
        await pilot.pause(0.2)
    assert app.return_value is not None and app.return_value == app.report
    assert json.loads(app.return_value.read_text())["ended_by"] == "caller"


async def test_the_command_palette_ends_the_call() -> None:
    app = make_app(ms_per_word=20)
    async with app.run_test(size=SIZE) as pilot:
        await greeted(pilot)
        await pilot.press("ctrl+p")
        await pilot.press(*"End the call")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.report is not None, "the report")
        ended = host_of(app).core.ended
        assert ended is not None and ended.ended_by == "caller"


async def test_typing_before_the_call_is_up_is_refused_politely() -> None:
    app = make_app(ms_per_word=20, brain_url="ws://127.0.0.1:9/brain")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"hello", "enter")
        assert any("not connected yet" in str(n.message) for n in app._notifications)
        assert app.query_one("#say", Input).value == "hello"  # kept for when it is up
