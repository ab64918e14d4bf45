"""The floor judge: pause, then decide. Scripted VAD frames on a fake clock, then real
espeak speech through the real VAD."""

from __future__ import annotations

import pytest
from caller_audio import espeak, join, silence

from sandbox.audio.backchannels import Burst, classify
from sandbox.audio.bargein import LONG_ASK_MS, FloorJudge
from sandbox.audio.resample import Float32, as_int16
from sandbox.audio.vad import FrameVad
from sandbox.call.caller_events import BargeIn, BotResumes, FloorEvent, OverBot

F = 30


def play(
    judge: FloorJudge,
    pattern: str,
    *,
    t0: int = 0,
    bot: bool = True,
    echo_free: bool = False,
) -> list[FloorEvent]:
    """Feed '#' voiced / '.' silent frames from ``t0``; return what the judge decided."""
    out: list[FloorEvent] = []
    for i, ch in enumerate(pattern):
        out += judge.feed(ch == "#", t0 + i * F, bot, echo_free=echo_free)
    return out


def test_voice_over_the_bot_pauses_it_within_three_frames_of_onset() -> None:
    judge = FloorJudge()
    events = play(judge, "...." + "###")
    assert events == [OverBot(t_onset=4 * F, t=7 * F)] and judge.paused


def test_a_single_click_or_a_flicker_does_not_pause() -> None:
    assert play(FloorJudge(), "#...#...#.." * 20) == []
    assert play(FloorJudge(), "##..##..##.." * 10) == []


def test_with_no_echo_at_the_microphone_two_voiced_frames_in_a_row_pause_the_bot() -> None:
    judge = FloorJudge()
    assert play(judge, "...." + "##", echo_free=True) == [OverBot(4 * F, 6 * F)]
    assert judge.paused
    echoing = FloorJudge()  # an echo's residue may flicker for two frames: three are needed
    assert play(echoing, "...." + "##") == []
    assert play(echoing, "#", t0=6 * F) == [OverBot(4 * F, 7 * F)]


def test_with_no_echo_voiced_frames_that_are_not_in_a_row_do_not_pause() -> None:
    assert play(FloorJudge(), "#.#...." * 20, echo_free=True) == []
    assert play(FloorJudge(), "#..#..#...." * 10, echo_free=True) == []


def test_with_no_echo_a_voice_coming_back_after_a_quick_resume_pauses_in_two_frames() -> None:
    judge = FloorJudge()
    play(judge, "#" * 12 + "." * 3, echo_free=True)  # "Okay," ...
    judge.take_request()
    assert [type(e) for e in judge.heard("Okay.", 470)] == [BotResumes]
    assert play(judge, "." + "##", t0=16 * F, echo_free=True) == [OverBot(0, 19 * F)]


def test_a_long_burst_is_asked_about_and_takes_the_floor_unless_it_was_acknowledgement() -> None:
    judge = FloorJudge()
    frames = judge.sentence_ms // F
    events = play(judge, "...." + "#" * frames)
    assert events == [OverBot(4 * F, 7 * F)] and judge.wants == (4 + frames) * F
    assert judge.take_request()
    play(judge, "###", t0=(4 + frames) * F)  # still talking: the ask stands
    assert judge.heard("Hold on, I have a question.", 1000) == [
        BargeIn(4 * F, 1000, "a sentence: 'Hold on, I have a question.'")
    ]

    slow_yeah = FloorJudge()
    play(slow_yeah, "#" * frames)
    assert slow_yeah.heard("Yeah, yeah.", 900) == [BotResumes(0, 900, "backchannel", "Yeah, yeah.")]


def test_a_long_burst_of_unclear_words_lets_the_bot_go_on_only_once_the_voice_is_quiet() -> None:
    judge = FloorJudge()
    frames = judge.sentence_ms // F
    quiet = judge.gap_ms // F
    play(judge, "#" * frames + "." * quiet)  # a loud "mm-hmm", over by the time it is read
    t = (frames + quiet) * F
    said = "And then, then."  # how tiny.en writes it
    assert judge.heard(said, t) == [BotResumes(0, t, "unclear", said)]

    talking = FloorJudge()
    play(talking, "#" * (frames + 3))  # still talking when the words arrive: a sentence
    t = (frames + 3) * F
    assert talking.heard("I would like", t) == [BargeIn(0, t, "a sentence: 'I would like'")]


def test_a_long_voice_whisper_reads_nothing_in_is_asked_again_not_taken_for_noise() -> None:
    judge = FloorJudge()
    frames = judge.sentence_ms // F
    play(judge, "#" * frames)
    assert judge.take_request()
    play(judge, "###", t0=frames * F)  # "Sorry, do you", read as "" while it goes on
    t = (frames + 3) * F
    assert judge.heard("", t) == [] and judge.paused
    assert judge.wants == t and judge.take_request()  # asked again, with more of the voice
    assert judge.heard("Sorry, do you have", t + 60) == [
        BargeIn(0, t + 60, "a sentence: 'Sorry, do you have'")
    ]

    deadline = FloorJudge()  # asked again, but the long ask's deadline still holds
    play(deadline, "#" * frames)
    deadline.heard("", frames * F)
    events = play(deadline, "#" * 40, t0=frames * F)
    assert [type(e) for e in events] == [BargeIn]
    assert events[0].t_decided <= frames * F + LONG_ASK_MS + F  # type: ignore[union-attr]

    over = FloorJudge()  # a long noise that has stopped still lets the bot go on
    play(over, "#" * frames + "." * (over.gap_ms // F))
    t = (frames + over.gap_ms // F) * F
    assert over.heard("", t) == [BotResumes(0, t, "noise", "")]


def test_without_an_answer_a_long_voice_takes_the_floor() -> None:
    judge = FloorJudge()
    events = play(judge, "#" * 80)  # Whisper never answers; the caller goes on
    (paused, barge) = events
    assert isinstance(paused, OverBot) and isinstance(barge, BargeIn)
    assert barge.t_decided - barge.t_onset <= judge.certain_ms + F


def test_a_knock_resumes_the_bot_without_asking_whisper() -> None:
    judge = FloorJudge()
    events = play(judge, "###" + "." * 10)
    gap_frames = judge.gap_ms // F
    assert events[0] == OverBot(0, 3 * F)
    assert events[1] == BotResumes(0, (3 + gap_frames) * F, "noise")
    assert judge.wants is None and not judge.paused


@pytest.mark.parametrize("text", ["Mm-hmm.", "Okay.", "Yeah yeah yeah yeah yeah"])
def test_a_short_burst_read_quickly_as_acknowledgement_lets_the_bot_go_on_at_once(
    text: str,
) -> None:
    judge = FloorJudge()
    events = play(judge, "#" * 12 + "." * 3)
    assert events == [OverBot(0, 3 * F)]
    assert judge.wants == (12 + judge.ask_gap_ms // F) * F and judge.brief  # a quick read
    assert judge.take_request() and not judge.take_request()  # asked for once
    assert judge.heard(text, 480) == [BotResumes(0, 480, "backchannel", text.strip())]
    assert not judge.paused and judge.wants is None and not judge.brief


@pytest.mark.parametrize(
    ("quick", "why"), [("", "noise"), ("And then them.", "unclear"), ("you", "noise")]
)
def test_a_quick_read_that_is_not_acknowledgement_resumes_the_bot_once_quiet_then_reads_in_full(
    quick: str, why: str
) -> None:
    judge = FloorJudge()
    play(judge, "#" * 12 + "." * 3)
    assert judge.take_request() and judge.brief
    # A full read could only add a floor word: the bot goes on as soon as the voice has been
    # quiet gap_ms, not after that read.
    assert judge.heard(quick, 470) == [] and judge.paused
    gap_frames = judge.gap_ms // F
    resumed = (12 + gap_frames) * F
    assert play(judge, "." * (gap_frames - 3), t0=15 * F) == [BotResumes(0, resumed, why, quick)]
    assert judge.wants == resumed and not judge.brief and judge.take_request()  # the late read
    assert play(judge, "." * 12, t0=(12 + gap_frames) * F) == []  # the read still out
    assert judge.heard("Mm-hmm.", 900) == [] and judge.wants is None  # nothing to undo


def test_an_unclear_quick_read_answered_after_the_gap_resumes_the_bot_at_once() -> None:
    judge = FloorJudge()
    play(judge, "#" * 12 + "." * 10)  # Whisper slow: the quick read still out at gap_ms
    assert judge.heard("here", 700) == [BotResumes(0, 700, "unclear", "here")]
    assert judge.wants == 700 and judge.take_request() and not judge.paused


def test_an_unclear_quick_read_is_stale_if_the_voice_comes_back_before_the_gap() -> None:
    judge = FloorJudge()
    play(judge, "#" * 12 + "." * 3)  # "Sorry," ...
    judge.take_request()
    assert judge.heard("self", 470) == []  # ... misread
    assert play(judge, "..###", t0=15 * F) == [] and judge.paused  # ... "can I ask"
    assert judge.wants is None


@pytest.mark.parametrize("late", ["Wait.", "No, no."])
def test_a_floor_word_the_late_read_finds_cuts_the_bot_as_it_speaks(late: str) -> None:
    judge = FloorJudge()
    play(judge, "#" * 12 + "." * 10)
    judge.heard("Wade.", 700)  # how a short "Wait" can come back from a quick read
    assert judge.take_request()
    play(judge, "." * 4, t0=22 * F)
    assert judge.heard(late, 820) == [
        BargeIn(0, 820, f"a floor word, read as the bot went on: {late!r}")
    ]
    assert play(judge, "###", t0=26 * F) == []  # the caller has the floor until the bot stops

    unsure = FloorJudge()  # the late read doubts it was speech: the bot is never stopped on it
    play(unsure, "#" * 12 + "." * 10)
    unsure.heard("Wade.", 700)
    assert unsure.heard(late, 820, sure=False) == []


def test_a_late_read_is_stale_once_a_voice_pauses_the_bot_again() -> None:
    judge = FloorJudge()
    play(judge, "#" * 12 + "." * 10)
    judge.heard("And then.", 700)
    judge.take_request()
    assert [type(e) for e in play(judge, "###", t0=24 * F)] == [OverBot]  # a new burst
    assert judge.wants is None
    assert judge.heard("Wait.", 800) == [] and judge.paused  # of the burst before


def test_a_held_verdict_is_stale_once_the_voice_goes_on() -> None:
    judge = FloorJudge()
    play(judge, "#" * 12 + "." * 3)
    judge.take_request()
    judge.heard("No.", 470, sure=False)  # doubtful: the full read decides
    judge.take_request()
    assert judge.heard("And then", 500) == []  # quiet for 140 ms only: held
    assert play(judge, "####", t0=15 * F) == [] and judge.paused and judge.wants is None


def test_a_held_verdict_resumes_the_bot_once_the_voice_is_quiet() -> None:
    judge = FloorJudge()
    play(judge, "#" * 12 + "." * 3)
    judge.take_request()
    judge.heard("No.", 470, sure=False)
    judge.take_request()
    assert judge.heard("Mm-hmm.", 500) == [] and judge.paused
    gap_frames = judge.gap_ms // F
    assert play(judge, "." * (gap_frames - 3), t0=15 * F) == [
        BotResumes(0, (12 + gap_frames) * F, "backchannel", "Mm-hmm.")
    ]


def test_a_full_read_answered_after_the_gap_decides_at_once() -> None:
    judge = FloorJudge()
    play(judge, "#" * 12 + "." * 10)  # Whisper slow: the quick read still out at gap_ms
    assert judge.wants == (12 + judge.ask_gap_ms // F) * F and judge.brief
    assert judge.heard("Stop.", 700, sure=False) == []
    assert judge.wants == 700 and not judge.brief and judge.take_request()
    assert judge.heard("", 760) == [BotResumes(0, 760, "noise", "")]


def test_a_quick_read_after_the_gap_resumes_the_bot_with_no_late_read_pending() -> None:
    judge = FloorJudge()
    play(judge, "#" * 12 + "." * 10)
    assert judge.heard("Uh.", 700) == [BotResumes(0, 700, "backchannel", "Uh.")]
    assert judge.wants is None and not judge.paused


def test_a_voice_coming_back_after_a_quick_resume_pauses_the_bot_again() -> None:
    judge = FloorJudge()
    play(judge, "#" * 12 + "." * 3)  # "Okay," ...
    judge.take_request()
    assert [type(e) for e in judge.heard("Okay.", 470)] == [BotResumes]
    events = play(judge, "." + "###", t0=16 * F)  # ... "so what about parking"
    assert events == [OverBot(0, 20 * F)] and judge.paused
    frames = judge.sentence_ms // F
    play(judge, "#" * frames, t0=20 * F)  # the same burst, now a sentence's length
    assert judge.wants is not None and not judge.brief and judge.take_request()
    assert [type(e) for e in judge.heard("Okay, so what about parking?", 1500)] == [BargeIn]

    after = FloorJudge()  # quiet for gap_ms after a quick resume: the burst is over
    play(after, "#" * 12 + "." * 3)
    after.take_request()
    after.heard("Okay.", 470)
    assert play(after, "." * (after.gap_ms // F), t0=16 * F) == []
    assert play(after, "###", t0=30 * F) == [OverBot(30 * F, 33 * F)]  # a new burst


def test_a_burst_that_runs_on_to_a_sentence_gets_the_full_read() -> None:
    judge = FloorJudge()
    short = judge.sentence_ms // F - 1
    play(judge, "#" * short + "." * 3)  # a quick read asked for ...
    assert judge.brief
    play(judge, "#", t0=(short + 3) * F)  # ... and the next word makes it a sentence's length
    assert judge.wants == (short + 4) * F and not judge.brief and judge.take_request()


def test_a_floor_word_read_quickly_takes_the_floor_at_once() -> None:
    judge = FloorJudge()
    play(judge, "#" * 12 + "." * 3)
    judge.take_request()
    assert judge.heard("Sorry,", 470) == [BargeIn(0, 470, "a floor word: 'Sorry,'")]


def test_an_unsure_quick_read_lets_the_bot_go_on_but_never_stops_it() -> None:
    going_on = FloorJudge()
    play(going_on, "#" * 12 + "." * 3)
    going_on.take_request()
    assert going_on.heard("Yeah.", 470, sure=False) == [BotResumes(0, 470, "backchannel", "Yeah.")]

    doubtful = FloorJudge()  # "No" read from the bot's own echo, unsurely: the full read decides
    play(doubtful, "#" * 12 + "." * 3)
    doubtful.take_request()
    assert doubtful.heard("No.", 470, sure=False) == [] and doubtful.paused
    assert doubtful.wants == 470 and not doubtful.brief


@pytest.mark.parametrize("text", ["Stop.", "Wait!", "No, no.", "Sorry, hold on."])
def test_a_short_bid_for_the_floor_takes_it(text: str) -> None:
    judge = FloorJudge()
    play(judge, "#" * 12 + "." * 8)
    assert judge.heard(text, 800) == [BargeIn(0, 800, f"a floor word: {text!r}")]


def test_a_transcript_of_a_burst_that_went_on_is_stale() -> None:
    judge = FloorJudge()
    play(judge, "#" * 8 + "." * 8)
    assert judge.take_request()
    play(judge, "##", t0=16 * F)  # the caller went on before Whisper answered
    assert judge.wants is None
    assert judge.heard("Okay.", 600) == []
    assert judge.paused
    events = play(judge, "." * 8, t0=18 * F)  # the burst ends again: asked afresh
    assert events == [] and judge.take_request()


def test_the_caller_never_waits_in_silence_longer_than_the_decision_window() -> None:
    judge = FloorJudge()
    events = play(judge, "#" * 12 + "." * 60)  # Whisper never answers
    (paused, resumed) = events
    assert isinstance(paused, OverBot) and isinstance(resumed, BotResumes)
    assert resumed.why == "undecided"
    assert judge.decide_within_ms <= resumed.t - paused.t < judge.decide_within_ms + F


def test_a_voice_that_goes_on_after_an_undecided_resume_still_takes_the_floor() -> None:
    judge = FloorJudge(decide_within_ms=300)
    events = play(judge, "###.##.##.##.##.##.##.##.##.##.##.##.")
    kinds = [type(e) for e in events]
    assert kinds == [OverBot, BotResumes, BargeIn]


def test_a_burst_heard_as_acknowledgement_may_run_on_until_it_is_certainly_a_sentence() -> None:
    judge = FloorJudge()
    frames = judge.sentence_ms // F
    play(judge, "#" * frames)  # a slow "yeah... yeah", asked about
    assert judge.heard("Yeah, yeah.", frames * F) == [
        BotResumes(0, frames * F, "backchannel", "Yeah, yeah.")
    ]
    # The voice runs on past sentence_ms, under the VAD's hangover: the bot keeps talking.
    more = (judge.certain_ms - judge.sentence_ms) // F - 1
    assert play(judge, "#" * more, t0=frames * F) == []
    events = play(judge, "##", t0=(frames + more) * F)  # ... until it is certainly a sentence
    assert [type(e) for e in events] == [BargeIn]
    assert events[0].why == "the voice went on: a sentence"  # type: ignore[union-attr]


def test_a_resumed_burst_must_end_before_the_next_pause() -> None:
    judge = FloorJudge()
    play(judge, "#" * 10 + "." * 8)
    judge.take_request()
    judge.heard("Yeah.", 600)
    gap = "." * (judge.gap_ms // F)
    assert [type(e) for e in play(judge, gap + "#" * 4, t0=18 * F)] == [OverBot]


def test_nothing_while_the_bot_is_silent_and_its_stopping_resets_the_judge() -> None:
    judge = FloorJudge()
    assert play(judge, "#" * 100, bot=False) == []
    play(judge, "#" * 5)
    assert judge.paused
    play(judge, "#", t0=5 * F, bot=False)  # cut or cancelled meanwhile
    assert not judge.paused
    assert play(judge, "###", t0=6 * F) == [OverBot(6 * F, 9 * F)]


def test_the_onset_and_gap_rules_are_checked() -> None:
    with pytest.raises(ValueError):
        FloorJudge(onset_frames=5, onset_window=4)
    with pytest.raises(ValueError):
        FloorJudge(clear_onset_frames=5, onset_window=4)
    with pytest.raises(ValueError):
        FloorJudge(ask_gap_ms=300, gap_ms=210)


@pytest.mark.parametrize(
    ("text", "burst"),
    [
        ("Mm-hmm.", Burst.BACKCHANNEL),
        ("Mm mm.", Burst.BACKCHANNEL),  # how Whisper tiny.en hears an espeak "mm-hmm"
        ("Uh-uh.", Burst.BACKCHANNEL),  # ... and "uh-huh"
        ("Okay", Burst.BACKCHANNEL),
        ("Yeah, right.", Burst.BACKCHANNEL),
        ("I see.", Burst.BACKCHANNEL),
        ("(coughing)", Burst.NOISE),
        ("[Laughter]", Burst.NOISE),
        (" you", Burst.NOISE),
        ("", Burst.NOISE),
        ("Stop.", Burst.FLOOR),
        ("Hold on.", Burst.FLOOR),
        ("Yeah, no.", Burst.FLOOR),
        ("And then the...", Burst.UNCLEAR),
        ("Yeah, okay, sure, right, fine.", Burst.UNCLEAR),  # too long for a backchannel
        ("Okay Okay Okay Okay Okay Okay", Burst.BACKCHANNEL),  # a short window's loop
        ("I see... I see... I see...", Burst.BACKCHANNEL),
        ("No no no no no no", Burst.FLOOR),
    ],
)
def test_transcripts_are_read_as_backchannels_noises_or_words(text: str, burst: Burst) -> None:
    assert classify(text) is burst


def _decisions(pcm: Float32, *, echo_free: bool = False) -> list[FloorEvent]:
    vad, judge = FrameVad(), FloorJudge()
    audio = as_int16(pcm)
    out: list[FloorEvent] = []
    for i in range(len(audio) // 480):
        voiced = vad.is_speech(audio[i * 480 : (i + 1) * 480])
        out += judge.feed(voiced, i * F, True, echo_free=echo_free)
    return out


@pytest.mark.parametrize(
    ("word", "wpm"),
    # Natural backchannel pace: Switchboard's "mm-hmm" averages ~0.45 s, "yeah" ~0.25 s.
    [("mm hmm", 240), ("uh-huh", 200), ("okay", 200), ("yeah", 200), ("right", 200)],
)
@pytest.mark.parametrize("echo_free", [False, True])
def test_spoken_backchannels_pause_the_bot_but_never_take_the_floor_by_length(
    word: str, wpm: int, echo_free: bool
) -> None:
    speech = join(silence(300), espeak(word, wpm=wpm), silence(1500))
    events = _decisions(speech, echo_free=echo_free)
    assert [type(e) for e in events] == [OverBot, BotResumes]  # undecided without Whisper


def test_a_spoken_objection_pauses_the_bot_at_once_and_takes_the_floor_by_its_length_alone() -> (
    None
):
    events = _decisions(join(silence(300), espeak("No wait, I want the other one."), silence(300)))
    paused, barge = events
    assert isinstance(paused, OverBot) and isinstance(barge, BargeIn)
    assert 270 <= paused.t_onset <= 400 and paused.t - paused.t_onset <= 150
    # No Whisper here: its transcript would decide sooner; the length alone decides by 1.7 s.
    assert barge.t_decided - barge.t_onset <= 1700


@pytest.mark.parametrize("text", ["Wait, can you tell me about parking?", "Hold on.", "Sorry,"])
def test_with_no_echo_a_spoken_objection_pauses_the_bot_a_frame_sooner(text: str) -> None:
    speech = join(silence(300), espeak(text), silence(300))
    (echoing, *_), (clear, *_) = _decisions(speech), _decisions(speech, echo_free=True)
    assert isinstance(echoing, OverBot) and isinstance(clear, OverBot)
    assert clear.t_onset == echoing.t_onset and clear.t == echoing.t - F
