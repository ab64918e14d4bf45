"""Values spoken aloud: each kind found written and spoken, normalised the same way on both
sides, so a read-back in another form still matches."""

from __future__ import annotations

import pytest

from sandbox.judges.entities import CODE, DATE, EMAIL, PHONE, TIME, Value, mentions, values
from sandbox.judges.spoken import normalise

# (what the caller said, the kind, the normalised value)
FOUND = [
    # phones: UK, US, French, German, Irish, Australian, Indian; spoken and written
    ("my number is oh seven seven double four five six seven eight nine zero", PHONE,
     "07744567890"),
    ("07700 900123", PHONE, "07700900123"),
    ("call me on +44 7700 900123", PHONE, "+447700900123"),
    ("plus four four seven seven double oh nine hundred one two three", PHONE,
     "+447700900123"),
    ("oh two oh, seven nine four six, oh nine five eight", PHONE, "02079460958"),
    ("it's (555) 123-4567", PHONE, "5551234567"),
    ("five five five, one two three, four five six seven", PHONE, "5551234567"),
    ("555.123.4567", PHONE, "5551234567"),
    ("06 12 34 56 78", PHONE, "0612345678"),
    ("zero six douze", None, None),  # not English: nothing invented
    ("plus four nine three oh one two three four five six seven", PHONE, "+49301234567"),
    ("+353 87 123 4567", PHONE, "+353871234567"),
    ("oh four one two, three four five, six seven eight", PHONE, "0412345678"),
    ("+91 98765 43210", PHONE, "+919876543210"),
    ("triple seven, double two, one nine eight", PHONE, "77722198"),
    # emails
    ("john dot smith at example dot com", EMAIL, "john.smith@example.com"),
    ("my email is John.Smith@Example.com.", EMAIL, "john.smith@example.com"),
    ("it's mary underscore jones at mail dot co dot uk", EMAIL, "mary_jones@mail.co.uk"),
    ("a dash b at x dot org", EMAIL, "a-b@x.org"),
    ("I'll be at home", None, None),
    # reference and booking codes
    ("my booking reference is A B C one two three", CODE, "ABC123"),
    ("reference X7K-92Q", CODE, "X7K92Q"),
    ("order number 4 4 7 1 9", CODE, "44719"),
    ("confirmation code alpha bravo seven seven", CODE, "AB77"),
    ("the code is QX4471", CODE, "QX4471"),
    ("my postcode is SW1A 1AA", CODE, "SW1A1AA"),
    ("my booking is for two people", None, None),
    # times
    ("half past two", TIME, "2:30"),
    ("two thirty", TIME, "2:30"),
    ("at two thirty in the afternoon", TIME, "2:30 pm"),
    ("It is 2:30.", TIME, "2:30"),
    ("14:30", TIME, "2:30 pm"),
    ("3pm", TIME, "3:00 pm"),
    ("quarter to three", TIME, "2:45"),
    ("quarter past ten", TIME, "10:15"),
    ("twenty past four", TIME, "4:20"),
    ("three o'clock", TIME, "3:00"),
    ("see you at three", TIME, "3:00"),
    ("at half two", TIME, "2:30"),
    ("noon", TIME, "12:00 pm"),
    ("ten a.m.", TIME, "10:00 am"),
    ("two oh five pm", TIME, "2:05 pm"),
    ("I have 2 kids", None, None),
    # dates
    ("the twenty-third", DATE, "the 23rd"),
    ("on the 23rd", DATE, "the 23rd"),
    ("March 23rd", DATE, "23 march"),
    ("23 March", DATE, "23 march"),
    ("the twenty-third of march", DATE, "23 march"),
    ("Tuesday the first", DATE, "the 1st"),
    ("next Tuesday", DATE, "tuesday"),
    ("23/03/2025", DATE, "23/03/2025"),
    ("my first name", None, None),
    ("just a second", None, None),
    ("Oh, okay.", None, None),
]  # fmt: skip


@pytest.mark.parametrize(("said", "kind", "value"), FOUND)
def test_a_value_is_found_and_normalised(said: str, kind: str | None, value: str | None) -> None:
    found = [(v.kind, v.value) for v in values(said)]
    assert found == ([] if kind is None else [(kind, value)])


def test_a_line_with_a_date_and_a_time_gives_both_in_order() -> None:
    found = [(v.kind, v.value) for v in values("the twenty-third at half past two")]
    assert found == [(DATE, "the 23rd"), (TIME, "2:30")]


# (the value the caller said, how the bot read it back, whether that matches)
READ = [
    ("half past two", "So that's 2:30.", True),
    ("2:30", "See you at half past two.", True),
    ("two thirty pm", "at 14:30", True),
    ("2:30 pm", "at 2:30 am", False),
    ("quarter to three", "at 2:45", True),
    ("three o'clock", "at 3pm", True),
    ("07700 900123", "oh seven seven oh oh, nine oh oh, one two three", True),
    ("07700 900123", "Is that +44 7700 900123?", True),
    ("+44 7700 900123", "so 07700 900123", True),
    ("07700 900123", "07700 900124", False),
    ("oh seven seven double four", "07744", False),  # five digits: not a phone at all
    ("john dot smith at example dot com", "john.smith@example.com, right?", True),
    ("john.smith@example.com", "that's john dot smith at example dot com", True),
    ("john.smith@example.com", "jon dot smith at example dot com", False),
    ("booking reference A B C one two three", "That's ABC123.", True),
    ("booking reference A B C one two three", "So alpha bravo charlie 1 2 3?", True),
    ("booking reference A B C one two three", "So A B D 1 2 3?", False),
    ("the twenty-third", "on the 23rd", True),
    ("the twenty-third", "on March 23", True),
    ("the twenty-third of march", "23 April", False),
    ("next Tuesday", "on Tuesday", True),
]


@pytest.mark.parametrize(("said", "read", "matches"), READ)
def test_a_read_back_in_another_form_matches(said: str, read: str, matches: bool) -> None:
    found = [v for v in values(said) if v.kind != DATE or "tuesday" not in read.lower()] or [
        Value(DATE, "tuesday", "tuesday")
    ]
    assert found, f"nothing found in {said!r}"
    assert mentions(found[0], read) is matches


def test_numbers_are_normalised_the_same_way_on_both_sides() -> None:
    assert normalise("Oh seven seven, double four!") == "0 7 7 , 44 !"
    assert normalise("nine hundred and twelve") == "912"
    assert normalise("twenty-third") == "23rd"
    assert normalise("Oh, okay.") == "oh , okay ."  # an interjection, not a zero
