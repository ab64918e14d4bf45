"""``sandbox demo``: each shipped scene does what its captions say (played headless on the
warp clock and read back from its saved session), a scene file's mistakes are words, and
the scenes play in the terminal app with their captions, ending on the summary card."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from caller_audio import stretches
from caller_audio import words as words_of
from textual.app import App, ComposeResult
from textual.widgets import Input
from ui_rig import (
    ManualClock,
    advance,
    connected,
    host_of,
    pin_session_id,
    use_home,
    wait_until,
)
from ui_tmux import sandbox_in_tmux

from sandbox.audio.stt import Transcriber
from sandbox.call.units import Bracket, Fate
from sandbox.demo.headless import play_scene, scene_options
from sandbox.demo.scene import SHIPPED, load_scene, parse_scene
from sandbox.errors import UserError
from sandbox.paths import HOME_ENV
from sandbox.record.session_kinds import CallMode
from sandbox.record.store import SessionStore
from sandbox.record.stored_call import frame_record
from sandbox.ui.demo_app import DemoApp
from sandbox.ui.runner import CallSetup
from sandbox.ui.screens.final_card import FinalCard
from sandbox.ui.typed_audio import TypedAudio

SnapCompare = Any


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    use_home(monkeypatch, folder)
    return folder


def sent(played: Any, kind: str) -> list[dict[str, Any]]:
    return [f.fields for f in played.host.recorder.frames if f.dir == "out" and f.type == kind]


async def test_the_barge_in_scene_cuts_at_its_word_and_says_so() -> None:
    scene = load_scene("barge_in")
    played = await play_scene(scene)
    cut = [u for u in played.host.core.units if u.fate is Fate.BARGED]
    assert len(cut) == 1
    heard, total = len(cut[0].heard.split()), len(cut[0].generated.split())
    barge = next(s for s in scene.steps if s.kind == "barge_in")
    assert heard == barge.after_words and total > heard
    claim = next(c for c in played.captions if "cut in" in c)
    assert f"heard {heard} of {total} words" in claim and cut[0].heard in claim
    assert len(sent(played, "interruption")) == 1
    with SessionStore() as store:  # the scene is a saved session
        assert store.find(played.host.core.session_id).cuts == 1


async def test_the_backchannel_scene_leaves_the_bot_whole() -> None:
    played = await play_scene(load_scene("backchannel"))
    answer = played.host.core.units[1]
    assert answer.fate is Fate.PLAYED and answer.heard == answer.generated
    assert sent(played, "interruption") == []
    assert [m["text"] for m in sent(played, "user_message")] == ["How much is a class?"]
    assert f"all {len(answer.generated.split())} words" in played.captions[-1]


async def test_the_take_back_scene_cancels_one_unit_and_says_the_rest_on_the_same_turn() -> None:
    played = await play_scene(load_scene("take_back"))
    units = [u for u in played.host.core.units if u.turn_id == 2]
    assert [u.fate for u in units] == [Fate.CANCELLED, Fate.PLAYED]
    cancelled = units[0]
    assert len(cancelled.heard.split()) < len(cancelled.generated.split())
    assert f"“{cancelled.heard}”" in played.captions[-1]


async def test_the_idle_scene_nudges_then_escalates() -> None:
    played = await play_scene(load_scene("idle"))
    assert [m["level"] for m in sent(played, "user_idle")] == [1, 2]
    assert len(played.captions) == 2


async def test_on_the_clock_the_resumed_scene_sends_the_whole_thought_once() -> None:
    played = await play_scene(load_scene("resumed"))
    assert [m["text"] for m in sent(played, "user_message")] == [
        "When are you open on Saturday mornings?"
    ]
    assert "On the clock there is no pause to hear" in played.captions[-1]
    assert not any("endpointer heard" in c for c in played.captions)  # a caption for sound


def test_every_shipped_scene_loads_and_a_bad_one_is_an_error_in_words(tmp_path: Path) -> None:
    assert [load_scene(name).name for name in SHIPPED] == list(SHIPPED)
    with pytest.raises(UserError, match="optional `when` of now, cut, played"):
        parse_scene('[[step]]\ncaption = "x"\nwhen = "later"\n', "bad")
    with pytest.raises(UserError, match="scene bad, step 1: give exactly one of"):
        parse_scene('[[step]]\nshout = "x"\n', "bad")
    with pytest.raises(UserError, match="no scene 'nope'"):
        load_scene("nope")
    mine = tmp_path / "mine.toml"
    mine.write_text('title = "Mine"\n[[step]]\nsay = "hello"\n[[step]]\ncaption = "done"\n')
    assert load_scene(str(mine)).title == "Mine"


@pytest.mark.parametrize(
    ("line", "words"),
    [
        (f"ms_per_word = {2**63 - 1}", "ms_per_word must be a positive whole number of ms up to"),
        ("ms_per_word = 0", "ms_per_word must be a positive whole number of ms up to 10,000"),
        (f"idle_ms = {2**63 - 1}", "idle_ms: must be 0 (off) or at most 4,294,967,295 ms"),
        ("idle_ms = 5", "idle_ms: must be 0 (off) or at least 250 ms (got 5)"),
        ("idle_ms = -1", "idle_ms: must be a whole number of ms (0: off)"),
    ],
)
def test_a_scenes_numbers_have_ranges(line: str, words: str) -> None:
    """A huge rate overflowed the recorder's clock and a huge idle never ended (issue 43)."""
    with pytest.raises(UserError, match=re.escape(f"scene big: {words}")):
        parse_scene(f'{line}\n[[step]]\nsay = "hello"\n', "big")


async def test_a_scene_plays_in_the_app_with_its_captions_and_ends_on_the_card() -> None:
    scene = load_scene("backchannel")
    audio = TypedAudio(20, "on the clock")
    app = DemoApp(
        CallSetup(scene_options(scene, None, CallMode.TYPED), audio),
        scene,
        number="1 of 1",
        last=True,
    )
    async with app.run_test(size=(150, 45)) as pilot:
        deadline = time.monotonic() + 30
        while app.runner.report is None and time.monotonic() < deadline:
            await pilot.pause(0.1)
        assert app.runner.report is not None, "the scene's call never ended"
        await pilot.pause(0.2)
        shown = str(app.caption.render())
        assert "opened no turn and cut nothing" in shown and "space: the summary" in shown
        await pilot.press("space")
        await pilot.pause(0.2)
        assert isinstance(app.screen, FinalCard)
        card = str(app.screen.query_one("#final-card").render())
        assert "A backchannel is not a barge-in" in card and "0 words the caller never" in card
        await pilot.press("space")
        await pilot.pause(0.2)
    assert app.captions and app.units()[1].fate is Fate.PLAYED


def shows(words: str) -> Callable[[str], bool]:
    """The terminal shows ``words``."""
    return lambda screen: words in screen


class CardOnly(App[None]):
    """The summary card over an empty screen, with fixed units: for its snapshot."""

    def compose(self) -> ComposeResult:
        yield from ()

    async def on_mount(self) -> None:
        played = await play_scene(load_scene("barge_in"))
        await self.push_screen(FinalCard([("Barge-in", played.host.core.units)]))


def test_the_summary_card_snapshot(snap_compare: SnapCompare) -> None:
    assert snap_compare(CardOnly(), terminal_size=(140, 30), run_before=_settled)


async def _settled(pilot: Any) -> None:
    for _ in range(100):
        if isinstance(pilot.app.screen, FinalCard):
            break
        await pilot.pause(0.1)


@pytest.mark.slow  # its kind runs in CI: the demo with sound, in tmux
def test_the_demo_runs_in_tmux_and_leaves_its_sessions(home: Path) -> None:
    """The command a presenter types: captions on screen, scene after scene, then the card."""
    with sandbox_in_tmux(
        ["demo", "--scene", "backchannel", "--scene", "barge_in", "--silent", "--auto"],
        env={HOME_ENV: str(home)},
    ) as terminal:
        for words in (
            "Callers murmur while they listen",
            "opened no turn and cut nothing",
            "A caller rings a yoga studio",
            "The caller cut in. They heard 6 of",
            "What the caller heard, and what a generated-text log",
            "EXIT=0",
        ):
            terminal.wait_for(shows(words), words, 60)
        assert "each scene is a saved session" in terminal.screen()
    with SessionStore() as store:
        assert len(store.sessions()) == 2


@pytest.mark.audio
def test_the_demo_with_sound_plays_both_voices_through_the_speaker(
    pulse: ModuleType, home: Path, tmp_path: Path, transcriber: Transcriber
) -> None:
    """On PulseAudio's virtual speaker: the barge-in scene with real audio. The room hears
    the caller (espeak) and the bot (Piper) from one speaker: Whisper finds a line of each
    in what the speaker played, and the cut is the engine's own barge-in decision."""
    recording = tmp_path / "speaker.wav"
    with (
        pulse.record_speaker(recording, rate=16000),
        sandbox_in_tmux(
            ["demo", "--scene", "barge_in", "--auto"], env={HOME_ENV: str(home), **pulse.env()}
        ) as terminal,
    ):
        for text in ("The caller cut in. They heard", "What the caller heard", "EXIT=0"):
            terminal.wait_for(shows(text), text, 120)
    samples, _rate = pulse.read_wav(recording)
    heard = " ".join(transcriber.transcribe(s, language="en").text for s in stretches(samples))
    said = words_of(heard)
    # The caller's lines (espeak): the question, spoken while the bot is quiet (the bot never
    # says "what", nor "you(r)/you're/you were opening", which tiny.en makes of "what are
    # your opening"), or the objection over the bot (it never asks about parking).
    joined = " ".join(said)
    question = any(w.startswith("what") for w in said) or re.search(
        r"\byou(r|'re|re| were)? opening", joined
    )
    assert question or "is there parking" in joined, heard
    # The bot's greeting (Piper), "thanks for calling Harbor Street Studio": tiny.en has
    # heard its "for" as "to" once, so the words around it are the ones held.
    assert "calling harbor street" in joined, heard
    with SessionStore() as store:
        (row,) = store.sessions()
        assert row.mode == "audio" and row.cuts == 1


@pytest.mark.audio
@pytest.mark.slow  # its kind runs in CI: the demo with sound, in tmux
def test_with_sound_a_paused_thought_reaches_the_brain_as_one_turn(
    pulse: ModuleType, home: Path
) -> None:
    """The resumed scene with real audio: "When are you open on" (500 ms of silence)
    "Saturday mornings?" is held by the endpointer and committed once, whole."""
    with sandbox_in_tmux(
        ["demo", "--scene", "resumed", "--auto"], env={HOME_ENV: str(home), **pulse.env()}
    ) as terminal:
        for text in ("The endpointer heard a thought", "What the caller heard", "EXIT=0"):
            terminal.wait_for(shows(text), text, 120)
    with SessionStore() as store:
        (row,) = store.sessions()
        sent = [f for f in store.frames(row.id) if f.dir == "out"]
        said = [
            frame_record(f).fields["text"] for f in sent if frame_record(f).type == "user_message"
        ]
    assert len(said) == 1 and "saturday" in said[0].lower(), said


async def _cut_captioned(pilot: Any) -> None:
    """The barge-in scene on a frozen clock, moved here until the cut's caption is up and the
    answer to the barge-in has all arrived."""
    app = pilot.app
    assert isinstance(app, DemoApp)
    await connected(pilot)
    for box in app.query(Input):
        box.cursor_blink = False
    app.wire.query_one("#wire-filter", Input).value = "-turn_step"
    for _ in range(400):
        if any("cut in" in caption for caption in app.captions):
            break
        await advance(pilot, app.setup.clock, 100)  # type: ignore[arg-type]
    host = host_of(app)
    await wait_until(
        pilot,
        lambda: len(host.core.units) >= 3 and host.core.units[2].bracket is Bracket.ENDED,
        "the answer to the barge-in",
    )
    await pilot.pause()


def test_the_cut_caption_snapshot(
    snap_compare: SnapCompare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pin_session_id(monkeypatch)
    monkeypatch.chdir(tmp_path)
    scene = load_scene("barge_in")
    audio = TypedAudio(100, "Demo on the clock, no sound (--silent).")
    setup = CallSetup(
        scene_options(scene, None, CallMode.TYPED), audio, report_path=Path("report.json"),
        clock=ManualClock(),
    )  # fmt: skip
    app = DemoApp(setup, scene, number="1 of 5")
    assert snap_compare(app, run_before=_cut_captioned, terminal_size=(150, 42))
