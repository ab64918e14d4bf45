"""The device stage's callers: the packaged set, a run's draw from it, and its voices (espeak-ng
and hibari) as audio that Whisper understands."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest
from caller_audio import word_errors

from sandbox.audio.resample import as_float32
from sandbox.audio.stt import Transcriber
from sandbox.errors import UserError
from sandbox_bench import pause_set
from sandbox_bench.caller_set import CallerTurn, CallerVoice, draw, load_caller_set
from sandbox_bench.caller_voices import render
from sandbox_bench.probe import LEVEL, RATE

#: The kinds of turn the issue asks the set to represent.
CLASSES = {
    "yes_no_question",
    "wh_question",
    "level_question",
    "request",
    "statement",
    "short_answer",
    "spelled",
    "name",
}


def _plain(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9']+", text.lower()))


def _pause_set_texts() -> set[str]:
    """Every sentence the pause set holds, whatever its tables are called."""
    found: set[str] = set()
    for value in vars(pause_set).values():
        if isinstance(value, tuple):
            for item in value:
                text = item[0] if isinstance(item, tuple) else item
                if isinstance(text, str) and " " in text:
                    found.add(_plain(text))
    return found


def test_the_packaged_set_represents_callers_in_several_voices_held_apart_from_the_pauses() -> None:
    caller_set = load_caller_set()
    assert set(caller_set.texts) == CLASSES
    assert all(len(texts) >= 4 for texts in caller_set.texts.values())
    assert all(caller_set.about[kind] for kind in CLASSES)
    # Questions that end on a preposition, and the short answers.
    assert any(
        t.endswith((" on?", " to?", " from?", " for?")) for t in caller_set.texts["wh_question"]
    )
    assert {"Yes.", "No thanks.", "Tomorrow at six."} <= set(caller_set.texts["short_answer"])
    espeak = [v for v in caller_set.voices if v.engine == "espeak"]
    assert len({v.name for v in espeak}) >= 3
    assert [v.name for v in caller_set.voices if v.engine == "hibari"] == ["heart"]
    assert all(v.rates[0] < v.rates[1] for v in caller_set.voices)
    # No sentence of the pause set (held apart for false cut-offs) is reused.
    ours = {_plain(t) for texts in caller_set.texts.values() for t in texts}
    held_apart = _pause_set_texts()
    assert len(held_apart) > 40  # the pause set's tables were found
    assert not ours & held_apart


def test_a_draw_is_the_seeds_alone_and_mixes_classes_voices_and_rates() -> None:
    caller_set = load_caller_set()
    turns = draw(caller_set, 24, seed=7)
    assert turns == draw(caller_set, 24, seed=7)
    assert turns != draw(caller_set, 24, seed=8)
    # A longer draw starts as the shorter one did: the warm-up turns come after it.
    assert draw(caller_set, 25, seed=7)[:24] == turns
    classes = Counter(t.kind for t in turns)
    assert set(classes) == CLASSES and min(classes.values()) >= 3
    pairings = Counter((t.voice.name, t.rate) for t in turns)
    assert len(pairings) == 2 * len(caller_set.voices)  # every voice at both its rates
    assert max(pairings.values()) - min(pairings.values()) <= 1
    # The start of the sequence (the other patiences' share) mixes classes too.
    assert len({t.kind for t in turns[:6]}) == 6
    for turn in turns:
        assert turn.text in caller_set.texts[turn.kind]
        assert turn.rate in turn.voice.rates
    assert turns[0].voice_label.startswith(f"{turns[0].voice.engine} {turns[0].voice.name} ")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[[voices]]\nengine = 'festival'\nname = 'x'\nrates = [1, 2]\n", "engine must be one of"),
        ("[[voices]]\nengine = 'espeak'\nname = 'en'\nrates = [150]\n", "two positive numbers"),
        ("[[voices]]\nengine = 'espeak'\nname = 'en'\nrates = [1, 2]\n", "names no classes"),
        (
            "[[voices]]\nengine = 'espeak'\nname = 'en'\nrates = [1, 2]\n"
            "[classes.Odd]\ntexts = ['Hi.']\n",
            "lower-case",
        ),
        (
            "[[voices]]\nengine = 'espeak'\nname = 'en'\nrates = [1, 2]\n"
            "[classes.a]\ntexts = ['Hi.']\n[classes.b]\ntexts = ['Hi.']\n",
            "holds 'Hi.' twice",
        ),
        ("voices = 3", "voices must be a non-empty list"),
        ("not toml [", "not TOML"),
    ],
)
def test_a_set_that_is_not_one_is_refused_in_words(text: str, words: str) -> None:
    with pytest.raises(UserError, match=re.escape(words)):
        load_caller_set(text)


def test_each_voice_of_the_set_says_a_turn_that_whisper_understands(
    transcriber: Transcriber,
) -> None:
    caller_set = load_caller_set()
    text = "Have you received my application yet?"
    turns = [
        CallerTurn(text, "yes_no_question", voice, rate)
        for voice in caller_set.voices
        for rate in voice.rates
    ]
    spoken = render(turns)
    lengths: dict[str, list[int]] = {}
    for line in spoken:
        samples = line.samples
        assert samples.dtype == np.int16
        # Trimmed to the voice: it starts and ends voiced, and its end is where it stops.
        assert 0 < line.voice_end <= len(samples)
        assert len(samples) - line.voice_end < RATE // 10
        assert np.abs(samples[line.voice_end :].astype(np.int32)).max(initial=0) <= LEVEL
        heard = transcriber.transcribe(as_float32(samples)).text
        assert word_errors(text, heard) <= 1, (line.turn.voice_label, heard)
        lengths.setdefault(line.turn.voice.name, []).append(len(samples))
    # The faster rate is the shorter line, for every voice.
    assert all(slow > fast for slow, fast in lengths.values())
    # Rendering is deterministic: hibari's noise is seeded, espeak-ng's has none.
    again = render([turns[-1]])[0]
    assert np.array_equal(again.samples, spoken[-1].samples)


def test_a_hibari_voice_outside_its_package_is_refused_rather_than_downloaded() -> None:
    voice = CallerVoice("hibari", "emma", (0.9, 1.1))
    with pytest.raises(UserError, match="not inside its package"):
        render([CallerTurn("Hello.", "statement", voice, 1.0)])
