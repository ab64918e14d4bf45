"""Hostile text through real Piper, as properties: the synthesizer never raises, gives audio
or nothing to say, and its words are the text's own, in order, a prefix of it.

The draw is :func:`sandbox_bench.tts_fuzz.hostile_text` (punctuation runs, ellipses, emoji,
bidi and zero-width marks, combining characters, CJK and other scripts, digits, URLs, words
too long to say, empty and whitespace clauses), driven by hypothesis; the bench runs 2,000
of them through the speech-out thread as well. Kept to a few dozen examples here.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbox.audio.tts import MAX_WORD_CHARS, Clip, Synthesizer, Trouble, TroubleSink
from sandbox_bench import tts_fuzz
from sandbox_bench.tts_fuzz import check_spoken, hostile_text

FEW = settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def spoken(synthesizer: Synthesizer, text: str) -> tuple[list[Clip], list[Trouble]]:
    troubles: list[Trouble] = []
    return list(synthesizer.synthesize(text, troubles.append)), troubles


@FEW
@given(rng=st.randoms(use_true_random=False))
def test_hostile_text_is_said_in_its_own_words_or_has_nothing_to_say(
    synthesizer: Synthesizer, rng: random.Random
) -> None:
    text = hostile_text(rng)
    clips, troubles = spoken(synthesizer, text)
    assert check_spoken(synthesizer, text, clips, troubles) == []


@settings(FEW, max_examples=12)
@given(text=st.text(max_size=30))
def test_any_unicode_at_all_is_said_in_its_own_words(synthesizer: Synthesizer, text: str) -> None:
    clips, troubles = spoken(synthesizer, text)
    assert check_spoken(synthesizer, text, clips, troubles) == []


@pytest.mark.parametrize(
    "text",
    [
        "Well.. let me see.",
        "Well.. ",
        "",
        "   \n\t ",
        "... — …",
        "😀 👨‍👩‍👧",
        "\u202eevil\u202c twin",
        "zero\u200bwidth\u200d",
        "e\u0301\u0301\u0301 caf\u00e9",
        "中文.. 日本語。한국어!",
        "Call 555-0100 or $3.14. At 10:30.",
        "https://example.com/a?b=1&c=2.",
        "x" * MAX_WORD_CHARS + " is long but said",
        "Now " + "x" * (MAX_WORD_CHARS + 1) + " is not.",
    ],
)
def test_known_hostile_clauses(synthesizer: Synthesizer, text: str) -> None:
    clips, troubles = spoken(synthesizer, text)
    assert check_spoken(synthesizer, text, clips, troubles) == []


def test_nothing_to_say_is_no_clip_and_no_trouble(synthesizer: Synthesizer) -> None:
    for text in ("", "  ", "\n", "...", "—", "?!"):
        assert spoken(synthesizer, text) == ([], [])


# --------------------------------------------------------------------------- the bench


def test_the_bench_speaks_hostile_units_through_the_speech_out_thread() -> None:
    figures = tts_fuzz.tts_fuzz(examples=4)
    assert figures["tts_examples"] == 4 and figures["tts_clauses"] >= 1
    assert figures["tts_dead_threads"] == figures["tts_broken"] == figures["tts_stalls"] == 0
    assert {"tts_repaired", "tts_skipped"} <= figures.keys()


class _ThreadKiller(BaseException):
    """What no ``except Exception`` catches: it ends the thread it is raised on."""


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_the_bench_counts_a_dead_synthesis_thread_and_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = iter(["First unit.", "This one dies.", "Third unit."])
    monkeypatch.setattr(tts_fuzz, "hostile_text", lambda _rng: next(texts))
    synthesize = Synthesizer.synthesize

    def deadly(
        self: Synthesizer,
        text: str,
        trouble: TroubleSink | None = None,
        *,
        language: int | None = None,
    ) -> Iterator[Clip]:
        if "dies" in text:
            raise _ThreadKiller
        return synthesize(self, text, trouble, language=language)

    monkeypatch.setattr(Synthesizer, "synthesize", deadly)
    figures = tts_fuzz.tts_fuzz(examples=3)
    assert figures["tts_examples"] == 3 and figures["tts_dead_threads"] == 1
