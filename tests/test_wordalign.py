"""Mapping spoken phonemes onto the text's own words (pure; phonemes as espeak writes them)."""

# IPA letters look like Latin ones on purpose here.
# ruff: noqa: RUF001

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sandbox.audio.wordalign import Token, align, is_sound, split_words


def symbols(ipa: str) -> list[str]:
    """One symbol per code point, as Piper lists them."""
    return list(ipa)


def sentence(ipa: str) -> list[str]:
    """A sentence as Piper's alignments list it: ``^``, its phonemes, ``$``."""
    return ["^", *symbols(ipa), "$"]


def said(spoken: list[str], ranges: list[tuple[int, int]]) -> list[str]:
    return ["".join(spoken[a:b]) for a, b in ranges]


def test_words_are_whitespace_tokens_with_their_punctuation() -> None:
    assert split_words("  Good question. One—two ") == [
        Token("Good", 2, 6),
        Token("question.", 7, 16),
        Token("One—two", 17, 24),
    ]
    assert split_words(" \n") == []


def test_one_phoneme_word_per_text_word() -> None:
    spoken = sentence("wˈɔːɹm ˌʌp ðɪʲ ˈɛndʒɪn.")
    refs = [symbols(r) for r in ("wˈɔːɹm", "ˈʌp", "ðə", "ˈɛndʒɪn.")]
    assert said(spoken, align(refs, spoken)) == ["wˈɔːɹm", "ˌʌp", "ðɪʲ", "ˈɛndʒɪn"]


def test_words_espeak_merged_are_split_where_their_sounds_meet() -> None:
    # "a cup of the tea": espeak says "of the" as one word.
    spoken = sentence("ɐ kˈʌp ʌvðə tˈiː.")
    refs = [symbols(r) for r in ("ˈeɪ", "kˈʌp", "ʌv", "ðə", "tˈiː.")]
    assert said(spoken, align(refs, spoken)) == ["ɐ", "kˈʌp", "ʌv", "ðə", "tˈiː"]


def test_a_number_spans_every_word_it_is_spoken_as() -> None:
    # "I have 42 apples." -> "forty-two" is two phoneme words, the gap between them included.
    spoken = sentence("aɪ hæv fˈɔːɹɾi tˈuː ˈæpəlz.")
    refs = [symbols(r) for r in ("ˈaɪ", "hˈæv", "fˈɔːɹɾi tˈuː", "ˈæpəlz.")]
    assert said(spoken, align(refs, spoken)) == ["aɪ", "hæv", "fˈɔːɹɾi tˈuː", "ˈæpəlz"]


def test_punctuation_and_pauses_belong_to_no_word() -> None:
    # "Yes — it's 3.5%": the dash is a pause, "3.5%" four spoken words.
    spoken = sentence("jˈɛs; ɪts θɹˈiː pɔɪnt fˈaɪv pɚsˈɛnt!")
    refs = [symbols(r) for r in ("jˈɛs", "ɪts", "θɹˈiː pɔɪnt fˈaɪv pɚsˈɛnt")]
    ranges = align(refs, spoken)
    assert said(spoken, ranges) == ["jˈɛs", "ɪts", "θɹˈiː pɔɪnt fˈaɪv pɚsˈɛnt"]
    covered = {k for a, b in ranges for k in range(a, b)}
    assert not covered & {k for k, s in enumerate(spoken) if s in "^$;!"}


def test_words_run_together_across_a_clause_break_are_split() -> None:
    # "Hello... world": espeak drops the pause and the space.
    spoken = sentence("həlˈoʊwˈɜːld")
    refs = [symbols(r) for r in ("həlˈoʊ", "wˈɜːld")]
    assert said(spoken, align(refs, spoken)) == ["həlˈoʊ", "wˈɜːld"]


def test_a_word_nobody_said_is_empty_where_the_one_before_ends() -> None:
    spoken = sentence("ɡˈʊd mˈɔːɹnɪŋ")
    refs = [symbols(r) for r in ("ɡˈʊd", "zzz", "mˈɔːɹnɪŋ")]
    ranges = align(refs, spoken)
    assert said(spoken, ranges)[::2] == ["ɡˈʊd", "mˈɔːɹnɪŋ"]
    assert ranges[1][0] == ranges[1][1] == ranges[0][1]


def test_a_first_word_nobody_said_is_empty_where_the_next_begins() -> None:
    spoken = sentence("hˈaɪ")
    ranges = align([symbols("zzz"), symbols("hˈaɪ")], spoken)
    assert ranges == [(1, 1), (1, 5)]


def test_nothing_spoken_or_nothing_to_say() -> None:
    assert align([symbols("hˈaɪ")], ["^", "$"]) == [(2, 2)]
    assert align([], sentence("hˈaɪ")) == []


def test_a_long_text_stays_in_step() -> None:
    words = ["wˈʌn", "tˈuː", "θɹˈiː", "fˈɔːɹ", "fˈaɪv"] * 30
    spoken = ["^", *" ".join(words), "$"]
    ranges = align([symbols(w) for w in words], spoken)
    assert said(spoken, ranges) == words


def test_sounds_are_letters_and_marks_are_not() -> None:
    assert is_sound("ɪ") and is_sound("ʃ") and is_sound("ɚ")
    assert not any(map(is_sound, ["ˈ", "ˌ", "ː", " ", ".", "^", "$", ""]))


PHONEMES = st.sampled_from(list("aɪəbdfɡhklmnpstvzʃθðˈː"))
WORD = st.lists(PHONEMES, min_size=0, max_size=6)


@given(st.lists(WORD, max_size=12), st.lists(st.sampled_from([*"aɪəbdkmst", "ˈ", " ", ",", "."])))
def test_ranges_are_in_order_within_bounds_and_never_overlap(
    refs: list[list[str]], spoken: list[str]
) -> None:
    ranges = align(refs, spoken)
    assert len(ranges) == len(refs)
    position = 0
    for start, stop in ranges:
        assert position <= start <= stop <= len(spoken)
        position = stop
