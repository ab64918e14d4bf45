"""The audit's comparison: the cut a unit's recorded heard text claims against the cut
Whisper's transcript of its audio supports, with the one word at a cut allowed either way;
Whisper's own mishearings inside what was played cost nothing, a record that is not a prefix
of the generated text costs its changed words."""

from __future__ import annotations

from sandbox.judges.heard_truth import audit_words, doubted, verdict, words_off

WHOLE = "We're open seven to eight on weekdays, and nine to four at the weekend."


def test_words_are_compared_without_case_punctuation_or_number_spelling() -> None:
    assert audit_words("A class is fifteen dollars, and a pass is ninety.") == audit_words(
        "a class is $15 and a pass is 90"
    )
    assert audit_words("Harbour Street Centre") == audit_words("Harbor street center.")
    assert audit_words("Fifty percent off!") == audit_words("50% off")
    assert audit_words("our hour") == ["our", "hour"]  # short words keep their spelling


def test_a_unit_played_whole_counts_each_word_missing_not_each_word_misheard() -> None:
    assert words_off(WHOLE, WHOLE, "we're open 7 to 8 on weekdays and 9 to 4 at the weekend") == 0
    assert words_off(WHOLE, WHOLE, "we're open 7 to 8 on weekdays and 9 to 4") == 3
    assert words_off(WHOLE, WHOLE, "we're open 7 to 9 on weekdays and 9 to 4 at the weekend") == 0
    # Seen in CI: tiny.en's "I say single classes" for "A single class is" mid-unit.
    price = "A single class is fifteen dollars, and a monthly pass is ninety. Book one?"
    said = "I say single classes $15 and a monthly pass is 90. Book one?"
    assert words_off(price, price, said) == 0


def test_a_record_that_is_not_a_prefix_of_the_generated_text_is_off_by_its_changes() -> None:
    changed = WHOLE.replace("weekdays", "Sundays").replace("weekend", "week")
    said = "we're open 7 to 8 on weekdays and 9 to 4 at the weekend"
    assert words_off(changed, WHOLE, said) == 2
    longer = f"{WHOLE} Bye now."
    assert words_off(longer, WHOLE, f"{said} bye now") == 2


def test_at_a_cut_the_boundary_word_counts_either_way() -> None:
    heard = "We're open seven to"
    assert words_off(heard, WHOLE, "We're open seven to") == 0
    assert words_off(heard, WHOLE, "We're open seven to eight") == 0  # partly played
    assert words_off(heard, WHOLE, "We're open seven") == 0  # cut in its first sound
    assert words_off(heard, WHOLE, "We're open") == 1
    assert words_off(heard, WHOLE, "We're open seven to eight on") == 1


def test_a_unit_that_was_never_heard_agrees_with_silence_only() -> None:
    assert words_off("", WHOLE, "") == 0
    assert words_off("", WHOLE, "We're") == 0  # the first word, barely begun
    assert words_off("", WHOLE, "We're open seven") == 2
    assert words_off("", WHOLE, "Okay. Thank you.") == 0  # none of its words in the clip


def test_the_verdict_and_the_doubt() -> None:
    assert verdict(0) == "agree"
    assert verdict(1) == "off by 1 word"
    assert verdict(3) == "off by 3 words"
    assert not doubted(1)
    assert doubted(2)
