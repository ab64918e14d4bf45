"""Caller scripts: parsing, and clear errors naming the step and the fix."""

from __future__ import annotations

import pytest

from sandbox.caller.script import Step, parse_script
from sandbox.errors import UserError

FULL = """
ms_per_word = 120
[[step]]
say = "What are your hours?"
[[step]]
barge_in = "What about Sunday?"
after_words = 4
[[step]]
backchannel = "mm-hmm"
[[step]]
type = "typed words"
[[step]]
rtvi = { type = "ui-event", data = { event = "tap" }, id = "e1" }
[[step]]
silence_ms = 900
[[step]]
end = true
"""


def test_every_step_kind_parses() -> None:
    script = parse_script(FULL)
    assert script.ms_per_word == 120
    assert [s.kind for s in script.steps] == [
        "say",
        "barge_in",
        "backchannel",
        "type",
        "rtvi",
        "silence_ms",
        "end",
    ]
    assert script.steps[1] == Step("barge_in", text="What about Sunday?", after_words=4)
    assert script.steps[2].after_words == 2  # default for over-the-bot steps
    assert script.steps[4].rtvi_type == "ui-event" and script.steps[4].rtvi_id == "e1"
    assert script.steps[4].rtvi_data == '{"event": "tap"}'
    assert script.steps[5].ms == 900
    assert script.steps[6] == Step("end")  # waits for the answer to play out


def test_an_end_can_be_now() -> None:
    (step,) = parse_script('[[step]]\nend = "now"\n').steps
    assert step == Step("end", now=True)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[[step]]\nsay = 3", "step 1: say needs the caller's words"),
        ("[[step]]\nsay = 'a'\nend = true", "give exactly one of"),
        ("[[step]]\nbarge_in = 'x'\nafter_words = -1", "after_words must be"),
        ("[[step]]\nsilence_ms = 'long'", "silence_ms must be"),
        ("[[step]]\nsay = 'a'\nloud = true", "unknown key(s) loud"),
        ("[[step]]\nrtvi = 'ui-event'", "rtvi needs a table"),
        (
            "[[step]]\nend = false",
            'write `end = true` (once the answer has played out) or `end = "now"`',
        ),
        ("say = 'x'", "has no steps"),
        ("[[step]\n", "not valid TOML"),
    ],
)
def test_mistakes_are_clear(text: str, words: str) -> None:
    with pytest.raises(UserError, match=None) as info:
        parse_script(text)
    assert words in str(info.value)


def test_a_say_can_pause_mid_thought_and_go_on() -> None:
    script = parse_script('[[step]]\nsay = "Can I come on"\nthen = "Saturday?"\npause_ms = 500\n')
    (step,) = script.steps
    assert (step.text, step.then, step.pause_ms) == ("Can I come on", "Saturday?", 500)
    with pytest.raises(UserError, match="pause_ms whole ms"):
        parse_script('[[step]]\nsay = "a"\nthen = "b"\npause_ms = -1\n')
    with pytest.raises(UserError, match="unknown key"):
        parse_script('[[step]]\nbarge_in = "a"\nthen = "b"\n')
