"""Rather no name than a wrong one (docs/call-record.md): a table of what callers say,
introductions and near misses, and the name the record keeps for each. A near miss gives no
name; a real introduction gives exactly the name; no sentence gives a wrong one. Then the same
rule end to end: ``sandbox call`` with a caller who asks to be called back, and one who introduces
themselves, read back from the stored session.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from brain_process import reported_call, run, serving

from sandbox.judges.names import introduced, refused

#: (what the caller said, the name kept or None).
INTRODUCTIONS: list[tuple[str, str | None]] = [
    # real introductions
    ("I'm Priya", "Priya"),
    ("I'm Priya.", "Priya"),
    ("Hi, I'm Priya and I'd like to book a table.", "Priya"),
    ("I am Priya Patel.", "Priya Patel"),
    ("this is Tom Baker", "Tom Baker"),
    ("Hi, this is Tom Baker from Acme.", "Tom Baker"),
    ("Hello, this is Tom Baker calling about my order.", "Tom Baker"),
    ("This is Sarah.", "Sarah"),
    ("my name's Ana", "Ana"),
    ("My name's Ana, A N A.", "Ana"),
    ("My name is John.", "John"),
    ("my name is john", "John"),
    ("my name is jo and I need help", "Jo"),
    ("Hello, my name is Mary-Jane O'Brien.", "Mary-Jane O'Brien"),
    ("My name is, um, Priya.", "Priya"),
    ("My name is actually Sam.", "Sam"),
    ("The name's Bond, James Bond.", "Bond"),
    ("call me Jo", "Jo"),
    ("Just call me Jo, everyone does.", "Jo"),
    ("You can call me Ishmael.", "Ishmael"),
    ("Please call me Kate.", "Kate"),
    ("it's Sam here", "Sam"),
    ("It's Sam here, I rang yesterday.", "Sam"),
    ("Hi, it's Sam.", "Sam"),
    ("Hello it's Maria calling from the office.", "Maria"),
    ("It is Sam speaking.", "Sam"),
    ("Priya speaking", "Priya"),
    ("Hello, Priya speaking.", "Priya"),
    ("Hello Priya speaking.", "Priya"),
    ("Yes, Tom Baker speaking.", "Tom Baker"),
    ("Emily speaking, how can I help?", "Emily"),
    ("This is Dr Patel.", "Dr Patel"),
    ("This is Dr. Patel from the surgery.", "Dr Patel"),
    ("I'm Mrs Okafor.", "Mrs Okafor"),
    ("Good morning, this is Chen.", "Chen"),
    ("Hi there, I'm Aisha, I'm calling about my booking.", "Aisha"),
    ("Yeah hi, this is Kwame, I wanted to ask about prices.", "Kwame"),
    ("Hello, I\u2019m Zoë.", "Zoë"),  # a typographic apostrophe, a letter past ASCII
    ("José speaking.", "José"),
    ("Hello, Émile speaking.", "Émile"),
    ("This is 4Chan.", None),
    ("Hi, I'm Sam, not Samuel.", "Sam"),
    ("My name is Sam, can you help me?", "Sam"),
    ("Sorry, my name is Olu.", "Olu"),
    ("I'm Jo from accounts.", "Jo"),
    ("This is Vincent.", "Vincent"),
    ("I'm Noor and my number is 07700 900123.", "Noor"),
    ("I'm Tom's dad, my name is Bill.", "Bill"),
    ("Hey it's Sam, can you call me back?", "Sam"),
    ("Mr. Smith speaking.", "Mr Smith"),
    ("Hello, is this Acme? My name is Paul.", "Paul"),
    ("Call me Sam, not Samuel.", "Sam"),
    # call me, meaning ring me
    ("Please call me back tomorrow", None),
    ("Please call me back tomorrow.", None),
    ("call me tomorrow", None),
    ("call me later", None),
    ("call me anytime", None),
    ("Call me any time after five.", None),
    ("Can you call me back?", None),
    ("Could you call me on my mobile?", None),
    ("Call me at home please.", None),
    ("Call me whenever you like.", None),
    ("Call me tonight.", None),
    ("Call me Monday morning.", None),
    ("Call me ASAP.", None),
    ("Just call me when it's ready.", None),
    ("Call me if anything changes.", None),
    ("Call me first thing.", None),
    ("Call me again next week.", None),
    ("call me crazy, but I think it's broken", None),
    ("Call me directly on this number.", None),
    ("Don't call me Sam.", None),
    ("Please don't call me again.", None),
    ("Never call me Sammy.", None),
    ("Call me.", None),
    # my name is, and it is not a name
    ("my name is not important", None),
    ("My name is not important.", None),
    ("My name is on the booking.", None),
    ("My name is hard to spell.", None),
    ("my name is complicated", None),
    ("my name is spelled differently", None),
    ("My name is the same as before.", None),
    ("My name is in your system already.", None),
    ("my name is private", None),
    ("My name isn't on the list.", None),
    # I'm, and what they are doing or how they are
    ("I'm calling about my order", None),
    ("I'm calling about…", None),
    ("Hi, I'm calling about the invoice.", None),
    ("I'm Calling about my order.", None),
    ("I'm fine thanks", None),
    ("I'm Fine, thanks.", None),
    ("I'm not sure.", None),
    ("I'm looking for a table for two.", None),
    ("I'm just wondering about your hours.", None),
    ("I'm British.", None),
    ("I'm Vegan, do you have options?", None),
    ("I am interested in the offer.", None),
    ("I'm sorry, I didn't catch that.", None),
    ("I'm Sorry.", None),
    ("I'm back.", None),
    ("I'm in London next week.", None),
    ("I'm from Leeds.", None),
    ("I'm with Acme.", None),
    ("I'm Sam's wife.", None),
    ("I'm OK.", None),
    # this is, and it is not the caller's name
    ("This is about my order.", None),
    ("this is great", None),
    ("This is Sam's phone.", None),
    ("This is Acme Plumbing.", None),
    ("This is Acme Support calling.", None),
    ("This is NHS Direct.", None),
    ("Is this Sam?", None),
    ("Who is this?", None),
    ("This is Tom?", None),
    ("This is not what I ordered.", None),
    ("This is regarding my account.", None),
    ("This is Monday's delivery.", None),
    # it's, unconfirmed
    ("It's Tuesday", None),
    ("It's Monday today.", None),
    ("It's Christmas.", None),
    ("It's me.", None),
    ("It's Sam.", None),  # no greeting, nothing after: "It's Easter"-shaped
    ("It's not working.", None),
    ("It's about my order.", None),
    ("It's fine.", None),
    # speaking, and it is not who speaks
    ("Generally speaking, it's fine.", None),
    ("Am I speaking to the manager?", None),
    ("Who am I speaking to?", None),
    ("Is that Sam speaking?", None),
    ("Yes speaking.", None),
    ("Public speaking is hard.", None),
    ("My name's not Sam, it's Tom.", None),  # "it's" unconfirmed: asked again next time
    ("I'm calling for my son, he's Tom.", None),
    ("My wife is Sarah.", None),
    ("hi i'm priya", None),  # a loose opener in lowercase: no case to go by
    ("THIS IS TOM", None),
    ("I'm Tom Baker Smith Jones.", None),
    # kin, roles, places and states: never a name, however they are introduced
    ("Hi, it's Mum here.", None),
    ("Hi, it's Mum.", None),
    ("It's Mum here, call me back when you can.", None),
    ("Hello, it's your mum.", None),
    ("Hiya, it's Mom.", None),
    ("Hi, it's Dad here.", None),
    ("Dad speaking.", None),
    ("Hello, it's Nan.", None),
    ("It's Gran here, love.", None),
    ("Hi, it's Granny calling.", None),
    ("This is Grandpa.", None),
    ("I'm Mum.", None),
    ("I'm Auntie.", None),
    ("Hi, it's Uncle here.", None),
    ("It's Sis here.", None),
    ("This is Mother.", None),
    ("Hi, it's Auntie Sue here.", None),  # "Sue" may be real, but "Auntie" leads: ask again
    ("Hello, Doctor speaking.", None),
    ("Hi, it's Reception here.", None),
    ("This is Security.", None),
    ("This is London calling.", None),
    ("This is London calling, can you hear me?", None),
    ("Hello, it's Manchester here.", None),
    ("This is Edinburgh.", None),
    ("I'm hungry.", None),
    ("I'm Hungry, is the kitchen open?", None),
    ("I'm retired now.", None),
    ("I'm Retired.", None),
    ("I'm upset about the delivery.", None),
    ("I'm Upset.", None),
    ("I'm Frustrated, this is the third time.", None),
    ("I'm married, so two of us.", None),
    ("I'm Pregnant, is that okay?", None),
    ("I'm calling about the boiler.", None),
    # the same openers with a name: kept
    ("Hi, this is Sarah", "Sarah"),
    ("It's Priya here", "Priya"),
    ("My name is Tom", "Tom"),
    ("Hi Mum, it's Sarah here.", "Sarah"),  # "Mum" addressed, "Sarah" given
    ("Hi, it's Sarah, Tom's mum.", "Sarah"),
    ("This is Dr Patel from the surgery, is that Mrs Jones?", "Dr Patel"),
    ("Doctor Okafor speaking.", "Doctor Okafor"),
    ("This is Tom calling.", "Tom"),
    ("Hi, I'm Priya, I'm retired.", "Priya"),
    # nothing like an introduction
    ("What are your opening hours?", None),
    ("I'd like to book a table for four on Friday.", None),
    ("My number is oh seven seven double four.", None),
    ("Thanks very much, goodbye.", None),
]
#: Forms of address offered as a name: refused (and kept as a finding), never the name.
REFUSED: list[tuple[str, str]] = [
    ("call me boss", "boss"),
    ("Just call me Mate.", "Mate"),
    ("My name is sir.", "sir"),
    ("Call me Mister.", "Mister"),
    ("Just call me Mum.", "Mum"),
    ("My name is Grandad.", "Grandad"),
]


def test_the_table_is_large_and_holds_both_kinds() -> None:
    assert len(INTRODUCTIONS) >= 100
    assert sum(name is None for _, name in INTRODUCTIONS) >= 50
    assert sum(name is not None for _, name in INTRODUCTIONS) >= 30


def test_no_sentence_gives_a_wrong_name() -> None:
    """The whole table at once, so a failure lists every wrong name, not the first."""
    wrong = [(line, introduced(line), name) for line, name in INTRODUCTIONS]
    assert [w for w in wrong if w[1] != w[2]] == []


@pytest.mark.parametrize(("line", "word"), REFUSED)
def test_a_form_of_address_is_refused_not_kept(line: str, word: str) -> None:
    assert introduced(line) is None and refused(line) == word


def test_a_near_miss_is_not_refused_either() -> None:
    """Refusal is for a form of address offered as a name: "call me there" offers none."""
    for line in ("Call me there.", "call me back tomorrow", "This is my order.", "I'm all ears."):
        assert refused(line) is None, line


BACK_TOMORROW = (
    "ms_per_word = 30\n"
    "[[step]]\nsay = 'I would like to change my booking please'\n"
    "[[step]]\nsay = 'Please call me back tomorrow'\n"
    "[[step]]\nend = true\n"
)
INTRODUCES = (
    "ms_per_word = 30\n"
    "[[step]]\nsay = 'Hi, this is Tom Baker from Acme'\n"
    "[[step]]\nsay = 'I would like to change my booking please'\n"
    "[[step]]\nend = true\n"
)


@pytest.mark.parametrize(
    ("script", "name"), [(BACK_TOMORROW, None), (INTRODUCES, "Tom Baker")], ids=["back", "tom"]
)
def test_the_stored_record_keeps_no_name_rather_than_a_wrong_one(
    script: str, name: str | None, tmp_path: Path
) -> None:
    """``sandbox call`` against ``sandbox brain echo``: the report's record and the stored
    session keep ``caller_name`` None for "Please call me back tomorrow" (it was "Back"),
    and the name for a real introduction."""
    home = tmp_path / "home"
    with serving(tmp_path, home, "echo") as (url, _proc):
        done, report = reported_call(tmp_path, home, script, "--brain", url, "--idle-ms", "0")
    assert done.returncode == 0, done.stdout + done.stderr
    assert report["record"]["caller_name"] == name
    shown = run(tmp_path, home, "sessions", "show", report["session_id"][:8], "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["record"]["caller_name"] == name
    words = run(tmp_path, home, "sessions", "show", report["session_id"][:8]).stdout
    assert ("the caller's name:" in words) is (name is not None)
