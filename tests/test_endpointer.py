"""The endpointer with scripted VAD decisions and a fake frame clock."""

from __future__ import annotations

import itertools
from typing import TypeVar, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sandbox.audio.endpointer import (
    FALL_SEMITONES,
    HIGH_END_SEMITONES,
    LIFT_SEMITONES,
    NARROWBAND_RISE_SEMITONES,
    RISE_SEMITONES,
    Endpointer,
    EndpointEvent,
    PauseStarted,
    Resumed,
    SpeechStarted,
    TextShape,
    TurnEnded,
    Windows,
    asks_question,
    looks_complete,
    text_shape,
    windows_for,
)
from sandbox.call.caller_events import TurnClose

F = 30  # ms per frame
E = TypeVar("E", SpeechStarted, PauseStarted, Resumed, TurnEnded)


class Script:
    """Feeds an endpointer frame by frame on a fake clock; '#' voiced, '.' silent."""

    def __init__(self, ep: Endpointer) -> None:
        self.ep = ep
        self.t = 0
        self.events: list[EndpointEvent] = []

    def play(self, pattern: str) -> list[EndpointEvent]:
        new: list[EndpointEvent] = []
        for ch in pattern:
            new += self.ep.feed(ch == "#", self.t)
            self.t += F
        self.events += new
        return new

    def until(self, kind: type[E], limit_ms: int = 10_000) -> E:
        """Feed silence until an event of ``kind`` comes out."""
        for _ in range(limit_ms // F):
            for ev in self.play("."):
                if isinstance(ev, kind):
                    return ev
        raise AssertionError(f"no {kind.__name__} within {limit_ms} ms")


def spoken(ep: Endpointer, frames: int = 20) -> Script:
    """A script in which the caller has just spoken ``frames`` voiced frames from t=0."""
    script = Script(ep)
    script.play("#" * frames)
    return script


def assert_ended_at(script: Script, w: Windows, window: str) -> None:
    """The turn of a ``spoken`` script (20 voiced frames) ends at ``window``, on time."""
    end = script.until(TurnEnded)
    assert end.reason == window
    assert (
        end.t - 20 * F
        == {"final": w.final_ms, "confident": w.confident_ms, "silence": w.silence_ms}[window]
    )


def test_patience_scale_is_monotonic_with_seven_as_the_calibration() -> None:
    scale = [windows_for(p) for p in range(11)]
    assert scale[7] == Windows(
        speculate_ms=90,
        level_guess_ms=300,
        final_ms=300,
        confident_ms=900,
        silence_ms=1620,
        threshold=0.5,
    )
    for low, high in itertools.pairwise(scale):
        assert high.confident_ms > low.confident_ms and high.silence_ms > low.silence_ms
        assert high.final_ms >= low.final_ms and high.threshold >= low.threshold
    for w in scale:
        assert w.speculate_ms <= w.final_ms <= w.confident_ms < w.silence_ms
        assert w.speculate_ms <= w.level_guess_ms <= w.confident_ms - 300 or w.confident_ms < 600
        assert w.final_ms % F == 0 and w.confident_ms % F == 0 and w.silence_ms % F == 0
    assert Endpointer().windows == scale[7]
    assert scale[0] == Windows(
        speculate_ms=90,
        level_guess_ms=90,
        final_ms=150,
        confident_ms=150,
        silence_ms=450,
        threshold=0.25,
    )
    # 10 promises no cut-off in a thinking pause: a fall does not hurry it.
    assert scale[10].final_ms == scale[10].confident_ms


@pytest.mark.parametrize("bad", [-1, 11, 7.5])
def test_patience_off_the_scale_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match=r"stt\.patience must be between 0 and 10"):
        Endpointer(bad)  # type: ignore[arg-type]
    ep = Endpointer(3)
    with pytest.raises(ValueError, match=r"stt\.patience must be between 0 and 10"):
        ep.set_patience(bad)  # type: ignore[arg-type]
    assert ep.windows == windows_for(3)


def test_a_word_starts_a_turn_at_its_first_voiced_frame_but_blips_do_not() -> None:
    script = Script(Endpointer())
    assert script.play("...#.....#..#...##....") == []  # clicks, flicker, a 60 ms sound
    assert script.play("#.##") == [SpeechStarted(22 * F)]


def test_pause_starts_after_speculate_window_and_names_where_speech_ended() -> None:
    script = spoken(Endpointer())
    assert script.play("..") == []
    assert script.play(".") == [PauseStarted(t=23 * F, speech_end=20 * F)]


def test_confirming_the_next_word_does_not_count_as_pause() -> None:
    """60 ms between words plus two voiced frames awaiting confirmation is not 90 ms of pause."""
    script = spoken(Endpointer(7))
    assert script.play("..####") == []


def test_a_vad_dropout_inside_speech_is_not_a_pause() -> None:
    script = spoken(Endpointer(0))
    script.play("#.##.###..###.#.##" + "#" * 10)
    assert [type(e) for e in script.events] == [SpeechStarted]


@pytest.mark.parametrize("patience", [0, 7, 10])
def test_confident_close_after_the_confident_window(patience: int) -> None:
    w = windows_for(patience)
    script = spoken(Endpointer(patience))
    script.until(PauseStarted)
    script.ep.hint_text("finished")  # the fastest a guess can come: the frame after the pause
    end = script.until(TurnEnded)
    earliest = max(w.confident_ms, w.speculate_ms + F)
    assert end == TurnEnded(t=20 * F + earliest, reason=TurnClose.CONFIDENT, speech_end=20 * F)


@pytest.mark.parametrize("patience", [0, 7, 10])
@pytest.mark.parametrize("hint", [None, "fragment", "open"])
def test_silence_forced_close_without_a_complete_guess(
    patience: int, hint: TextShape | None
) -> None:
    w = windows_for(patience)
    script = spoken(Endpointer(patience))
    script.until(PauseStarted)
    if hint is not None:
        script.ep.hint_text(hint)
    end = script.until(TurnEnded)
    assert end == TurnEnded(t=20 * F + w.silence_ms, reason=TurnClose.SILENCE, speech_end=20 * F)


@pytest.mark.parametrize("patience", [0, 7, 10])
def test_an_unpunctuated_guess_the_turn_model_calls_finished_closes_as_fast_as_punctuation(
    patience: int,
) -> None:
    """No slow tail: "is the studio open on public holidays" with no question mark."""
    closes = []
    for shape in ("finished", "open"):
        script = spoken(Endpointer(patience))
        script.until(PauseStarted)
        script.ep.hint_turn(windows_for(patience).threshold)
        script.ep.hint_text(shape)
        closes.append(script.until(TurnEnded))
    assert closes[0] == closes[1]
    assert closes[1].reason == TurnClose.CONFIDENT


@pytest.mark.parametrize("patience", [7, 10])
def test_a_caller_who_pauses_up_to_840_ms_after_a_finished_sounding_half_is_not_cut_off(
    patience: int,
) -> None:
    """Whisper punctuates "Can somebody call?" and the model agrees, yet the caller goes on
    ("me back after six"): from the default patience up, both verdicts wait out the pauses
    callers take to think (see the module docstring for the 900 ms)."""
    script = spoken(Endpointer(patience))
    script.until(PauseStarted)
    script.ep.hint_turn(1.0)
    script.ep.hint_text("finished")
    script.play("." * ((840 - windows_for(patience).speculate_ms) // F))
    assert not any(isinstance(ev, TurnEnded) for ev in script.events)
    assert isinstance(script.play("####")[0], Resumed)


@pytest.mark.parametrize("patience", [0, 7, 10])
def test_finished_words_said_with_a_falling_voice_close_at_the_final_window(patience: int) -> None:
    """ "I would like to check the status of my order. Please." with the voice falling to
    the bottom of its range: the statement is over, no need to wait out a thinking pause."""
    w = windows_for(patience)
    script = spoken(Endpointer(patience))
    script.until(PauseStarted)
    script.ep.hint_fall(-(FALL_SEMITONES + 1))
    script.ep.hint_text("finished")
    end = script.until(TurnEnded)
    earliest = max(w.final_ms, w.speculate_ms + F)
    assert end == TurnEnded(t=20 * F + earliest, reason=TurnClose.FINAL, speech_end=20 * F)


@pytest.mark.parametrize(
    ("semitones", "shape", "window"),
    [
        (-FALL_SEMITONES, "finished", "final"),  # the threshold itself is a fall
        (-FALL_SEMITONES + 0.1, "finished", "confident"),  # level: maybe thinking
        (3.0, "finished", "confident"),  # a rise: a question, or a caller going on
        (None, "finished", "confident"),  # too little voice to tell
        # No punctuation, the model doubts, but the voice fell as a statement's end does
        # (a thinking pause seldom does: "Yes", "It's 3 8 1 7 7 2"): finished, at once.
        (-6.0, "open", "final"),
        (-6.0, "open+doubt", "final"),
        (-1.0, "open+doubt", "silence"),  # level, and the model doubts: the maximum wait
        (-6.0, "open+model", "final"),  # no punctuation, the model calls it finished
        (-6.0, "fragment", "silence"),  # "I'd like to book the" waits whatever the voice did
    ],
)
def test_the_final_window_needs_a_fall_on_words_that_are_no_fragment(
    semitones: float | None, shape: str, window: str
) -> None:
    w = windows_for(7)
    script = spoken(Endpointer(7))
    script.until(PauseStarted)
    script.ep.hint_fall(semitones)
    script.ep.hint_text("open" if shape.startswith("open") else cast(TextShape, shape))
    if shape == "open+model":
        script.ep.hint_turn(w.threshold)
    if shape == "open+doubt":
        script.ep.hint_turn(w.threshold - 0.2)
    assert_ended_at(script, w, window)


@pytest.mark.parametrize(
    ("semitones", "shape", "question", "window"),
    [
        # "Can I pay by bank transfer?": a finished question whose voice rose on its end.
        (RISE_SEMITONES, "finished", True, "final"),
        (LIFT_SEMITONES - 0.1, "finished", True, "confident"),  # level: maybe thinking
        (None, "finished", True, "confident"),
        # The same rise on words that are no question ("The heating has not worked."): a
        # continuation rise as often as not.
        (6.0, "finished", False, "confident"),
        # "which platform does the train leave from" (open: unpunctuated, stranded) that
        # rose is finished even when the model doubts it; unrisen, the model decides.
        (3.0, "open+doubt", True, "final"),
        (-1.0, "open+doubt", True, "silence"),
        # A rise on words the model alone calls finished ("I'd like to book") is no question.
        (6.0, "open+model", False, "confident"),
        (6.0, "fragment", False, "silence"),
    ],
)
def test_a_finished_question_whose_voice_rose_closes_at_the_final_window(
    semitones: float | None, shape: str, question: bool, window: str
) -> None:
    w = windows_for(7)
    script = spoken(Endpointer(7))
    script.until(PauseStarted)
    script.ep.hint_fall(0.0)
    script.ep.hint_rise(semitones)
    script.ep.hint_text(
        "open" if shape.startswith("open") else cast(TextShape, shape), question=question
    )
    if shape == "open+model":
        script.ep.hint_turn(w.threshold)
    if shape == "open+doubt":
        script.ep.hint_turn(w.threshold - 0.2)
    assert_ended_at(script, w, window)


@pytest.mark.parametrize(
    ("narrowband", "semitones", "window"),
    [
        (False, RISE_SEMITONES, "final"),
        (True, RISE_SEMITONES, "confident"),  # inside the narrowband pitch track's noise
        (True, NARROWBAND_RISE_SEMITONES, "final"),
    ],
)
def test_on_a_narrowband_line_a_rise_must_clear_the_pitch_tracks_noise(
    narrowband: bool, semitones: float, window: str
) -> None:
    w = windows_for(7)
    script = spoken(Endpointer(7, narrowband=narrowband))
    script.until(PauseStarted)
    script.ep.hint_fall(0.0)
    script.ep.hint_rise(semitones)
    script.ep.hint_text("finished", question=True)
    end = script.until(TurnEnded)
    assert end.reason == window
    assert end.t - 20 * F == (w.final_ms if window == "final" else w.confident_ms)


@pytest.mark.parametrize(
    ("lift", "fall", "shape", "question", "window"),
    [
        # "Can my sister collect the parcel for me?" said level: its last syllable lifts
        # short of a rise, its end above the turn's median: the question's high end.
        (LIFT_SEMITONES, 1.1, "finished", True, "final"),
        (LIFT_SEMITONES, HIGH_END_SEMITONES, "finished", True, "final"),  # both at the edge
        # Ending barely above the median ("What time does the last train leave …" lifts
        # 0.8 and ends 0.6 up): a caller pausing inside the question.
        (1.0, HIGH_END_SEMITONES - 0.2, "finished", True, "confident"),
        # Unpunctuated ("can my sister collect the parcel for me"), the model doubting it.
        (1.0, 1.1, "open+doubt", True, "final"),
        # The same lift after a dip below the median is no high end: "Can I pay for this …"
        (1.0, -0.5, "finished", True, "confident"),
        (LIFT_SEMITONES - 0.1, 1.1, "finished", True, "confident"),  # level: maybe thinking
        (1.0, None, "finished", True, "confident"),  # too little voice for the median
        # A lift on words that are no question is no verdict ("I'd like to book …").
        (1.0, 1.1, "finished", False, "confident"),
        (1.0, 1.1, "open+doubt", False, "silence"),
        (1.0, 1.1, "fragment", False, "silence"),
    ],
)
def test_a_finished_question_whose_voice_lifts_at_its_end_closes_at_the_final_window(
    lift: float, fall: float | None, shape: str, question: bool, window: str
) -> None:
    w = windows_for(7)
    script = spoken(Endpointer(7))
    script.until(PauseStarted)
    script.ep.hint_fall(fall)
    script.ep.hint_rise(lift)
    # A lift, like a rise, has the guess started at once: it may end at the final window.
    lifted = fall is not None and fall >= HIGH_END_SEMITONES and lift >= LIFT_SEMITONES
    assert script.ep.guess_due is lifted
    script.ep.hint_text(
        "open" if shape.startswith("open") else cast(TextShape, shape), question=question
    )
    if shape == "open+doubt":
        script.ep.hint_turn(w.threshold - 0.2)
    assert_ended_at(script, w, window)


def test_on_a_narrowband_line_a_lift_is_no_verdict() -> None:
    """Through a narrowband uplink a level syllable's pitch reads up to 2.4 semitones off:
    a lift is inside that noise."""
    w = windows_for(7)
    script = spoken(Endpointer(7, narrowband=True))
    script.until(PauseStarted)
    script.ep.hint_fall(1.1)
    script.ep.hint_rise(1.0)
    script.ep.hint_text("finished", question=True)
    assert script.until(TurnEnded).t - 20 * F == w.confident_ms


def test_a_resume_forgets_the_lift() -> None:
    """ "Can I book … a table": a lift that the caller went on from was not the end."""
    w = windows_for(7)
    script = spoken(Endpointer(7))
    script.until(PauseStarted)
    script.ep.hint_fall(1.0)
    script.ep.hint_rise(1.0)
    script.play("####")
    resumed_end = script.t
    script.until(PauseStarted)
    script.ep.hint_rise(1.0)  # no fall handed over for this pause: its median is unknown
    script.ep.hint_text("finished", question=True)
    assert script.until(TurnEnded).t == resumed_end + w.confident_ms


def test_a_rising_pause_is_transcribed_at_once_and_a_resume_forgets_the_rise() -> None:
    w = windows_for(7)
    script = spoken(Endpointer(7))
    script.until(PauseStarted)
    script.ep.hint_rise(RISE_SEMITONES + 1)
    assert script.ep.guess_due
    script.play("####")  # "Can I book … a table": the rise was not the end
    resumed_end = script.t
    script.until(PauseStarted)
    script.ep.hint_text("finished", question=True)
    assert script.until(TurnEnded).t == resumed_end + w.confident_ms


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("Can I pay by bank transfer?", True),
        ("is breakfast included in the price.", True),  # Whisper's full stop on a question
        ("How long does the repair usually take?", True),
        ("Which platform does the train leave from?", True),
        ("which platform does the train leave from", True),
        ("The heating is not working.", False),
        ("Great, see you on Saturday.", False),
        ("Right, so what?", True),  # punctuated as a question
        ("is the shop open on Sunday", True),  # unpunctuated, opening as a question
        ("Can I pay for the?", False),
        ("Do you have any...", False),
        ("", False),
        ("اتوار کو کتب خانہ کتنے بجے کھلتا ہے؟", True),  # Urdu's question mark
        ("اتوار کو کتب خانہ کتنے بجے کھلتا ہے\u06d4", False),
    ],
)
def test_a_whole_question_is_punctuated_or_opens_as_one_and_is_no_fragment(
    text: str, asked: bool
) -> None:
    assert asks_question(text) is asked


def test_a_falling_pause_is_transcribed_at_once_a_level_one_later() -> None:
    """The guess for "…my order," (level) waits, so Whisper is free for "…please." (falls)."""
    w = windows_for(7)
    script = spoken(Endpointer(7))
    script.until(PauseStarted)
    assert not script.ep.guess_due
    script.ep.hint_fall(-0.4)
    assert not script.ep.guess_due
    script.play("." * ((w.level_guess_ms - w.speculate_ms) // F - 1))
    assert not script.ep.guess_due
    script.play(".")
    assert script.ep.guess_due
    script.play("####")
    assert not script.ep.guess_due  # speaking again
    script.until(PauseStarted)
    script.ep.hint_fall(-4.0)
    assert script.ep.guess_due


def test_a_resume_forgets_the_fall() -> None:
    """The voice fell before "Please": the caller went on, so the fall was not the end."""
    w = windows_for(7)
    script = spoken(Endpointer(7))
    script.until(PauseStarted)
    script.ep.hint_fall(-5.0)
    script.play("####")
    resumed_end = script.t
    script.until(PauseStarted)
    script.ep.hint_text("finished")
    assert script.until(TurnEnded).t == resumed_end + w.confident_ms


def test_the_turn_model_below_the_threshold_leaves_an_unpunctuated_guess_to_the_max_wait() -> None:
    w = windows_for(7)
    script = spoken(Endpointer(7))
    script.until(PauseStarted)
    script.ep.hint_turn(w.threshold - 0.01)
    script.ep.hint_text("open")
    assert script.until(TurnEnded) == TurnEnded(20 * F + w.silence_ms, TurnClose.SILENCE, 20 * F)


@pytest.mark.parametrize("probability", [None, 0.0, 1.0])
def test_a_fragment_waits_whatever_the_turn_model_says(probability: float | None) -> None:
    """ "I'd like to book the" never closes early, and the model alone (no guess yet) never
    closes a turn: the commit needs the text anyway."""
    w = windows_for(7)
    for shape in ("fragment", None):
        script = spoken(Endpointer(7))
        script.until(PauseStarted)
        if probability is not None:
            script.ep.hint_turn(probability)
        if shape is not None:
            script.ep.hint_text("fragment")
        assert script.until(TurnEnded) == TurnEnded(
            20 * F + w.silence_ms, TurnClose.SILENCE, 20 * F
        )


def test_patience_moves_the_threshold_of_a_pause_already_running() -> None:
    script = spoken(Endpointer(0))
    script.until(PauseStarted)
    script.ep.hint_turn(0.3)  # finished at patience 0 (0.25), not at 7 (0.5)
    script.ep.hint_text("open")
    assert script.ep.finished
    script.ep.set_patience(7)
    assert not script.ep.finished
    assert script.until(TurnEnded).reason == "silence"


def test_a_resume_forgets_the_turn_models_verdict() -> None:
    w = windows_for(7)
    script = spoken(Endpointer(7))
    script.until(PauseStarted)
    script.ep.hint_turn(1.0)
    script.ep.hint_text("open")
    script.play("####")  # the caller goes on: both verdicts were about the old pause
    resumed_end = script.t
    script.until(PauseStarted)
    script.ep.hint_text("open")
    assert script.until(TurnEnded).t == resumed_end + w.silence_ms


@pytest.mark.parametrize(
    ("text", "shape"),
    [
        ("Is the studio open on public holidays?", "finished"),
        ("is the studio open on public holidays", "open"),
        ("I'd like to book", "open"),
        ("I'd like to book a table for", "fragment"),
        ("I'd like to book a table for.", "fragment"),
        # A wh-question may end on its preposition: punctuated as one, it is finished...
        ("Which platform does the train leave from?", "finished"),
        ("Who do I talk to?", "finished"),
        # ... unpunctuated, or a yes/no question, the turn model decides.
        ("which platform does the train leave from", "open"),  # opens with a question word
        ("Can I pay for?", "open"),
        ("Where are you from?", "finished"),
        ("Can I pay for", "fragment"),  # a yes/no question does not leave its preposition
        ("Can I pay for the?", "fragment"),
        ("I'd like to book a table and...", "fragment"),
        ("", "fragment"),
        # "a" and "i" after a spelled code or name are its last letter, not an article or a
        # subject waiting for its verb; after a word that starts a phrase they are still those.
        ("it's spelled k double u my lsk i", "open"),
        ("My reference is the 7Q4 I", "open"),
        ("The postcode is SW1A 2A A.", "finished"),
        ("The postcode is S W 1 A, 2 A A.", "finished"),
        ("It's spelled K-O-W-A-L-S-K-I", "open"),
        ("My number is 4 7 2 and I", "fragment"),
        ("I paid 20 pounds for a", "fragment"),
        ("Can I", "fragment"),
        ("Can I book a", "fragment"),
        # An inverted auxiliary and its subject wait for the main verb...
        ("How long will it", "fragment"),
        ("What time does it?", "fragment"),
        ("When can I", "fragment"),
        # ... unless they are the whole question, a tag or an ellipsis; "is" needs no verb.
        ("Will it?", "finished"),
        ("Close the door, will you?", "finished"),
        ("Neither can we.", "finished"),
        ("How much is it?", "finished"),
        ("how long will it take", "open"),
    ],
)
def test_text_shape(text: str, shape: TextShape) -> None:
    assert text_shape(text) == shape


def test_a_late_guess_closes_on_the_next_frame() -> None:
    w = windows_for(7)
    script = spoken(Endpointer(7))
    script.until(PauseStarted)
    script.play("." * ((w.confident_ms + 300) // F))  # Whisper still busy past the window
    script.ep.hint_text("finished")
    assert script.play(".") == [
        TurnEnded(t=script.t, reason=TurnClose.CONFIDENT, speech_end=20 * F),
    ]


def test_a_late_verdict_closes_at_once_on_the_silence_already_counted() -> None:
    """The host asks as a verdict lands between frames: past its window the turn ends
    there, at the last frame heard; before it, or outside a pause, nothing happens."""
    w = windows_for(7)
    script = spoken(Endpointer(7))
    script.until(PauseStarted)
    assert script.ep.close_now() == []  # no verdict yet
    script.ep.hint_fall(-(FALL_SEMITONES + 1))
    script.ep.hint_text("finished")
    assert script.ep.close_now() == []  # a verdict, but the final window is still running
    script.play("." * (w.final_ms // F))
    assert script.events[-1] == TurnEnded(20 * F + w.final_ms, TurnClose.FINAL, 20 * F)
    late = spoken(Endpointer(7))
    late.until(PauseStarted)
    late.play("." * ((w.final_ms + 120) // F))  # Whisper still busy past the window
    late.ep.hint_fall(-(FALL_SEMITONES + 1))
    late.ep.hint_text("finished")
    assert late.ep.close_now() == [TurnEnded(late.t, TurnClose.FINAL, 20 * F)]
    assert late.ep.close_now() == []  # ended: the next turn has not begun


def test_resuming_discards_the_guess_and_restarts_the_silence_counter() -> None:
    w = windows_for(7)
    script = spoken(Endpointer(7))
    pause = script.until(PauseStarted)
    script.ep.hint_text("finished")
    onset = script.t + F
    assert script.play(".###") == [Resumed(onset)]
    script.play("#" * 10)
    speech_end = script.t
    script.until(PauseStarted)
    # The old "complete" verdict is gone: without a new one, only silence closes the turn.
    end = script.until(TurnEnded)
    assert end == TurnEnded(speech_end + w.silence_ms, TurnClose.SILENCE, speech_end)
    assert pause.speech_end == 20 * F


def test_a_blip_in_the_pause_does_not_reset_the_silence_counter() -> None:
    w = windows_for(7)
    script = spoken(Endpointer(7))
    script.play("." * 10 + "#" + "." * 10 + "#.#")
    end = script.until(TurnEnded)
    assert end.t == 20 * F + w.silence_ms
    assert not any(isinstance(e, Resumed) for e in script.events)


def test_set_patience_shortens_a_pause_already_running() -> None:
    script = spoken(Endpointer(10))
    script.until(PauseStarted)
    script.play("." * (1500 // F))  # 1.5 s of silence: patience 10 keeps waiting
    assert not any(isinstance(e, TurnEnded) for e in script.events)
    script.ep.set_patience(0)
    assert script.play(".") == [TurnEnded(script.t, TurnClose.SILENCE, 20 * F)]


def test_set_patience_lengthens_a_pause_already_running() -> None:
    script = spoken(Endpointer(0))
    script.until(PauseStarted)
    script.ep.hint_text("finished")
    script.ep.set_patience(10)  # before the 150 ms confident window of patience 0 elapsed
    end = script.until(TurnEnded)
    assert end == TurnEnded(20 * F + windows_for(10).confident_ms, TurnClose.CONFIDENT, 20 * F)


def test_a_hint_outside_a_pause_is_ignored() -> None:
    script = spoken(Endpointer(7))
    script.ep.hint_text("finished")  # no guess can exist while the caller is talking
    end = script.until(TurnEnded)
    assert end.reason == TurnClose.SILENCE


def test_next_turn_starts_fresh() -> None:
    script = spoken(Endpointer(0))
    script.until(TurnEnded)
    onset = script.t
    assert script.play("###") == [SpeechStarted(onset)]


@pytest.mark.parametrize(
    ("text", "complete"),
    [
        ("I would like to book a table for two.", True),
        ("What time do you open?", True),
        ("Could you tell me where my order is?", True),
        ("Could you tell me where my order is", False),
        ("The problem is.", False),
        ("Yes!", True),
        ("I would like to book a table for", False),
        ("I would like to book a table and...", False),
        ("I want to, um.", False),
        ("So I was thinking that.", False),
        ("And.", False),
        ("", False),
        ("   ", False),
        ("Mm-hmm.", True),
        # Other scripts' full stops (Whisper's Hindi, Urdu and Chinese).
        ("मैं अपनी मुलाकात शुक्रवार को करना चाहता हूँ।", True),
        ("کیا میں اپنے کتے کو ہوٹل کے کمرے میں لا سکتا ہوں؟", True),
        ("میں اپنی ملاقات جمعہ کو کرنا چاہتا ہوں\u06d4", True),
        ("图书馆星期天几点开门\uff1f", True),
        ("میں اپنی ملاقات جمعہ کو کرنا چاہتا ہوں", False),
        ("I would like to book a table for—", False),
    ],
)
def test_looks_complete(text: str, complete: bool) -> None:
    assert looks_complete(text) is complete


@given(
    frames=st.lists(st.booleans(), max_size=400),
    patience=st.integers(0, 10),
    hints=st.lists(st.sampled_from(["finished", "fragment", "open"]), max_size=400),
    probabilities=st.lists(st.floats(0.0, 1.0), max_size=400),
)
def test_event_grammar_holds_for_any_vad_sequence(
    frames: list[bool],
    patience: int,
    hints: list[TextShape],
    probabilities: list[float],
) -> None:
    """Started, then pauses and resumes, then an end; closes never beat their window."""
    ep = Endpointer(patience)
    w = windows_for(patience)
    state = "idle"
    for i, voiced in enumerate(frames):
        if state == "paused" and i < len(hints):
            ep.hint_text(hints[i])
        if state == "paused" and i < len(probabilities):
            ep.hint_turn(probabilities[i])
        for ev in ep.feed(voiced, i * F):
            if isinstance(ev, SpeechStarted):
                assert state == "idle" and ev.t <= i * F
                state = "speaking"
            elif isinstance(ev, PauseStarted):
                assert state == "speaking" and ev.t - ev.speech_end >= w.speculate_ms
                state = "paused"
            elif isinstance(ev, Resumed):
                assert state == "paused"
                state = "speaking"
            else:
                assert state == "paused"
                floors = {"final": w.final_ms, "confident": w.confident_ms}
                floor = floors.get(ev.reason, w.silence_ms)
                assert ev.t - ev.speech_end >= floor
                state = "idle"
