"""A read-back is ``corrected`` only when the caller's answer corrects the value read back
(docs/call-record.md): a table of what callers answer once a value they said was read back
to them — confirmations, corrections, new questions about another value, unrelated lines —
and the status each gives. No answer that is not a correction is judged one, and every
correction and confirmation is still judged as such.
"""

from __future__ import annotations

from collections import Counter

from sandbox.judges.entities import Value, values
from sandbox.judges.readback import ReadbackStatus as Status
from sandbox.judges.readback import answer

#: The values read back, each as the caller first said it.
SAID: dict[str, str] = {
    "friday": "Can I book a table for Friday?",
    "phone": "My number is 07700 900123.",
    "time": "Half past seven, please.",
    "email": "It's john dot smith at example dot com.",
    "code": "My booking reference is ABC123.",
}

CONFIRMATION, CORRECTION, QUESTION, UNRELATED = "confirmation", "correction", "question", "other"
#: What each class of answer must be judged.
EXPECTED = {
    CONFIRMATION: Status.CONFIRMED,
    CORRECTION: Status.CORRECTED,
    QUESTION: Status.UNCONFIRMED,
    UNRELATED: Status.UNCONFIRMED,
}

#: (the value read back, the caller's answer, its class).
ANSWERS: list[tuple[str, str, str]] = [
    # agreeing with the read-back
    ("friday", "yes that's right", CONFIRMATION),
    ("friday", "correct", CONFIRMATION),
    ("friday", "yep", CONFIRMATION),
    ("friday", "Yes, Friday.", CONFIRMATION),
    ("friday", "Friday, yes.", CONFIRMATION),
    ("friday", "That's right, Friday at seven.", CONFIRMATION),
    ("friday", "Yeah, that's it.", CONFIRMATION),
    ("friday", "Perfect, thanks.", CONFIRMATION),
    ("friday", "Spot on.", CONFIRMATION),
    ("friday", "Lovely, yes please.", CONFIRMATION),
    ("friday", "Uh-huh.", CONFIRMATION),
    ("friday", "Sounds good.", CONFIRMATION),
    ("friday", "That's fine.", CONFIRMATION),
    ("friday", "Oh yes, Friday's perfect.", CONFIRMATION),
    ("friday", "Absolutely.", CONFIRMATION),
    ("friday", "Sure, Friday is good.", CONFIRMATION),
    ("friday", "Mm-hmm.", CONFIRMATION),
    ("friday", "Yes, and what time do you open on Saturday?", CONFIRMATION),
    ("friday", "That's right. Are you open on Sunday too?", CONFIRMATION),
    ("phone", "Yes, that's my number.", CONFIRMATION),
    ("phone", "That's correct.", CONFIRMATION),
    ("phone", "Yes, oh seven seven oh oh, nine oh oh, one two three.", CONFIRMATION),
    ("phone", "Exactly.", CONFIRMATION),
    ("phone", "yup", CONFIRMATION),
    ("time", "Yes, half past seven is great.", CONFIRMATION),
    ("time", "That works, thanks.", CONFIRMATION),
    ("time", "Brilliant.", CONFIRMATION),
    ("email", "Yes, that's the one.", CONFIRMATION),
    ("code", "Correct, ABC123.", CONFIRMATION),
    ("code", "No problem.", CONFIRMATION),
    ("friday", "No, that's right.", CONFIRMATION),  # British: "no" agreeing
    # correcting it
    ("phone", "no, it's 07700 900124", CORRECTION),
    ("phone", "No, oh seven seven oh oh, nine oh oh, one two four.", CORRECTION),
    ("phone", "It's 07700 900124.", CORRECTION),
    ("phone", "oh seven seven oh oh nine oh oh one two four", CORRECTION),
    ("phone", "That's not my number.", CORRECTION),
    ("phone", "Wrong, it ends one two four.", CORRECTION),
    ("phone", "You misheard, it's 07700 900124.", CORRECTION),
    ("phone", "Nope, 07700 900124.", CORRECTION),
    ("phone", "Actually, it ends in four.", CORRECTION),
    ("friday", "no, Thursday", CORRECTION),
    ("friday", "not Friday, Thursday", CORRECTION),
    ("friday", "Thursday, not Friday.", CORRECTION),
    ("friday", "Thursday rather than Friday.", CORRECTION),
    ("friday", "Could we do Thursday instead of Friday?", CORRECTION),
    ("friday", "No.", CORRECTION),
    ("friday", "Nah, Thursday please.", CORRECTION),
    ("friday", "Sorry, I said Thursday.", CORRECTION),
    ("friday", "Thursday.", CORRECTION),
    ("friday", "It's Thursday actually.", CORRECTION),
    ("friday", "Actually it's Thursday.", CORRECTION),
    ("friday", "Make it Thursday instead.", CORRECTION),
    ("friday", "Can we make that Thursday instead?", CORRECTION),
    ("friday", "That's wrong, I need Thursday.", CORRECTION),
    ("friday", "Not quite, it's the Thursday.", CORRECTION),
    ("friday", "It should be Thursday.", CORRECTION),
    ("friday", "Oh, no, Saturday.", CORRECTION),
    ("friday", "No no, I meant Saturday.", CORRECTION),
    ("friday", "Incorrect.", CORRECTION),
    ("friday", "You've got that wrong, Thursday.", CORRECTION),
    ("time", "No, half past eight.", CORRECTION),
    ("time", "Eight o'clock, not half past seven.", CORRECTION),
    ("time", "I said eight thirty.", CORRECTION),
    ("time", "That's not right, it's eight.", CORRECTION),
    ("email", "No, it's jon dot smith at example dot com.", CORRECTION),
    ("email", "That's wrong, it's john dot smyth at example dot com.", CORRECTION),
    ("code", "No, A B C one two four.", CORRECTION),
    ("code", "It's ABC124.", CORRECTION),
    # a new question, about another value of the same kind or another thing
    ("friday", "What time do you open on Saturday?", QUESTION),
    ("friday", "and what about Sunday?", QUESTION),
    ("friday", "What about Saturday?", QUESTION),
    ("friday", "Are you open on Sunday as well?", QUESTION),
    ("friday", "Do you do brunch on Saturday?", QUESTION),
    ("friday", "Is the kitchen open late on Thursday?", QUESTION),
    ("friday", "How about Monday, are you open then?", QUESTION),
    ("friday", "Actually, what time do you open on Saturday?", QUESTION),
    ("friday", "Oh, and do you have space on the 23rd?", QUESTION),
    ("friday", "Could I also book Saturday?", QUESTION),
    ("friday", "what about sunday", QUESTION),
    ("friday", "do you open at all on sunday", QUESTION),
    ("friday", "What's the earliest slot on Saturday?", QUESTION),
    ("friday", "Which is quieter, Saturday or Sunday?", QUESTION),
    ("friday", "Saturday, what time do you open then?", QUESTION),
    ("time", "What time do you close?", QUESTION),
    ("time", "Do you have anything at eight?", QUESTION),
    ("time", "Is there a table at nine as well?", QUESTION),
    ("time", "And is half past eight free on Saturday?", QUESTION),
    ("phone", "Can I give you my work number too, 020 7946 0958?", QUESTION),
    ("phone", "Should I text 07700 900999 instead of calling?", QUESTION),
    ("email", "Can you send it to my work address as well?", QUESTION),
    ("code", "Is that the same as order QX4471?", QUESTION),
    # nothing to do with the read-back
    ("friday", "Can you hear me?", UNRELATED),
    ("friday", "Sorry, the line's bad.", UNRELATED),
    ("friday", "Hang on, someone's at the door.", UNRELATED),
    ("friday", "My dog is called Rex.", UNRELATED),
    ("friday", "It's raining here.", UNRELATED),
    ("friday", "I'll need a high chair for the baby.", UNRELATED),
    ("friday", "We've got a birthday on Saturday too.", UNRELATED),
    ("friday", "My daughter's birthday is on Saturday.", UNRELATED),
    ("friday", "It's not working, the app I mean.", UNRELATED),
    ("friday", "Actually, I'd also like to ask about parking.", UNRELATED),
    ("friday", "Something's wrong with my card though.", UNRELATED),
    ("friday", "Four of us, two adults and two kids.", UNRELATED),
    ("friday", "Hold on a second.", UNRELATED),
    ("friday", "Oh no, I forgot my wallet.", UNRELATED),
    ("friday", "I'm not sure about the menu though.", UNRELATED),
    ("friday", "Thanks for your help.", UNRELATED),
    ("phone", "I'm on my mobile right now.", UNRELATED),
    ("phone", "Let me grab a pen.", UNRELATED),
    ("phone", "My husband might call instead.", UNRELATED),
    ("phone", "I'm at work until six.", UNRELATED),
    ("time", "We'll be coming from the station.", UNRELATED),
    ("time", "One of us is vegetarian.", UNRELATED),
    ("time", "We were there on Saturday at eight and it was lovely.", UNRELATED),
    ("email", "I don't check it very often.", UNRELATED),
    ("code", "I got it in an email last week.", UNRELATED),
]


def _value(key: str) -> Value:
    (value,) = values(SAID[key])
    return value


def test_the_table_is_large_and_holds_every_class() -> None:
    counts = Counter(kind for _, _, kind in ANSWERS)
    assert len(ANSWERS) >= 60
    assert all(counts[kind] >= 15 for kind in EXPECTED), counts
    assert {key for key, _, _ in ANSWERS} == set(SAID)


def test_every_value_read_back_is_found_as_said() -> None:
    assert {key: _value(key).kind for key in SAID} == {
        "friday": "date",
        "phone": "phone",
        "time": "time",
        "email": "email",
        "code": "code",
    }


def test_no_answer_is_a_false_correction_and_none_is_missed() -> None:
    """The whole table at once: every answer judged wrongly is listed, with how each class
    fared (judged right / all), and no answer that is not a correction is ``corrected``."""
    judged = [(line, kind, answer(_value(key), line)) for key, line, kind in ANSWERS]
    wrong = [(line, kind, status) for line, kind, status in judged if status != EXPECTED[kind]]
    right = Counter(kind for _, kind, status in judged if status == EXPECTED[kind])
    total = Counter(kind for _, kind, _ in judged)
    fared = ", ".join(f"{kind} {right[kind]}/{total[kind]}" for kind in EXPECTED)
    false_corrections = [w for w in wrong if w[2] == Status.CORRECTED]
    assert false_corrections == [], f"false corrections ({fared})"
    assert wrong == [], f"judged wrongly ({fared})"
