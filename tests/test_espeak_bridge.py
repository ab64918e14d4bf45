"""Piper's espeak-ng bridge with its per-call losses stopped: the voice set only when it
changes, each clause held by its list alone, the phonemes as the bridge gives them."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

import pytest
from piper import espeakbridge
from piper.phonemize_espeak import ESPEAK_DATA_DIR

from sandbox.audio.espeak_bridge import Clause, LeanBridge, install


@pytest.fixture
def bridge() -> Iterator[LeanBridge]:
    lean = install(espeakbridge)
    espeakbridge.initialize(str(ESPEAK_DATA_DIR))
    yield lean
    espeakbridge.set_voice("en-us")  # as Piper's English voices leave it


def counted(calls: list[str], function: Callable[[str], None]) -> Callable[[str], None]:
    def call(argument: str) -> None:
        calls.append(argument)
        function(argument)

    return call


def test_the_voice_is_set_only_when_it_changes_or_espeak_starts_again(
    bridge: LeanBridge,
) -> None:
    sets: list[str] = []
    lean = LeanBridge(
        espeakbridge.initialize, counted(sets, espeakbridge.set_voice), espeakbridge.get_phonemes
    )
    for voice in ("en-us", "en-us", "en-us", "de", "de", "en-us"):
        lean.set_voice(voice)
    assert sets == ["en-us", "de", "en-us"]
    lean.initialize(str(ESPEAK_DATA_DIR))
    lean.set_voice("en-us")
    assert sets == ["en-us", "de", "en-us", "en-us"]


def test_switching_voices_still_switches_the_phonemes(bridge: LeanBridge) -> None:
    espeakbridge.set_voice("en-us")
    english = espeakbridge.get_phonemes("hello")
    espeakbridge.set_voice("de")
    german = espeakbridge.get_phonemes("hello")
    espeakbridge.set_voice("en-us")
    assert german != english
    assert espeakbridge.get_phonemes("hello") == english
    assert english[0][0]


def test_each_clause_is_held_by_its_list_alone(bridge: LeanBridge) -> None:
    espeakbridge.set_voice("en-us")
    clauses = espeakbridge.get_phonemes("Good morning, how can I help? We open at nine.")
    assert len(clauses) == 3
    last = clauses[-1]
    del clauses
    assert sys.getrefcount(last) == 2  # ``last`` and getrefcount's own argument: no leak


def test_a_bridge_that_does_not_leak_is_left_as_it_is() -> None:
    def fresh(text: str) -> list[Clause]:
        return [(text, ".", True)]

    lean = LeanBridge(lambda _dir: None, lambda _voice: None, fresh)
    clause = lean.get_phonemes("fine")[0]
    assert sys.getrefcount(clause) == 2
    assert clause == ("fine", ".", True)
