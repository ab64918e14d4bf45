"""Caller scripts: parsing, and clear errors naming the step and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.caller.script import ScriptProblems, Step, load_script, parse_script
from sandbox.caller.script_limits import MAX_NESTING, nesting
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
    with pytest.raises(UserError, match="pause_ms must be a whole number of ms from 0 to 60,000"):
        parse_script('[[step]]\nsay = "a"\nthen = "b"\npause_ms = -1\n')
    with pytest.raises(UserError, match="unknown key"):
        parse_script('[[step]]\nbarge_in = "a"\nthen = "b"\n')


BIG = 2**63 - 1
PHRASES_101 = ", ".join(['"w"'] * 101)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            f'ms_per_word = {BIG}\n[[step]]\nsay = "a"',
            "ms_per_word must be a positive whole "
            "number of ms up to 10,000 (got 9,223,372,036,854,775,807)",
        ),
        (
            f"[[step]]\nsilence_ms = {BIG}",
            "silence_ms must be a whole number of ms from 0 to 600,000",
        ),
        (
            f'[[step]]\nbarge_in = "a"\nafter_words = {BIG}',
            "after_words must be a whole number from 0 to 10,000",
        ),
        (
            f'[[step]]\nsay = "a"\nthen = "b"\npause_ms = {BIG}',
            "pause_ms must be a whole number of ms from 0 to 60,000",
        ),
        (
            f'[[step]]\nsay = "a"\nexpect = {{ reply_within_ms = {BIG} }}',
            "reply_within_ms must be a positive whole number of ms up to 600,000",
        ),
        (
            f'[[step]]\nsay = "{"a" * 10_001}"',
            "say has 10,001 characters; a line has at most 10,000",
        ),
        (
            f'[[step]]\nsay = "a"\nexpect = {{ heard_contains = [{PHRASES_101}] }}',
            "expect.heard_contains lists 101 phrases; at most 100",
        ),
        (
            f'[[step]]\nsay = "a"\nexpect = {{ heard_contains = "{"w" * 1001}" }}',
            "has a phrase of 1,001 characters; at most 1,000",
        ),
        ("[[step]]\nend = true\n" * 10_001, "10,001 steps; a script has at most 10,000"),
    ],
)
def test_every_number_and_size_has_a_range_said_in_words(text: str, words: str) -> None:
    with pytest.raises(UserError) as refused:
        parse_script(text)
    assert words in str(refused.value)


def test_the_edges_of_each_range_are_allowed() -> None:
    script = parse_script(
        "ms_per_word = 10000\n"
        '[[step]]\nsay = "a"\nthen = "b"\npause_ms = 60000\n'
        "expect = { reply_within_ms = 600000 }\n"
        '[[step]]\nbarge_in = "c"\nafter_words = 10000\n'
        "[[step]]\nsilence_ms = 600000\n"
    )
    say, barge_in, silence = script.steps
    assert script.ms_per_word == 10_000 and say.pause_ms == 60_000
    assert barge_in.after_words == 10_000 and silence.ms == 600_000


def test_every_problem_of_a_script_is_said_not_only_the_first() -> None:
    text = (
        "ms_per_word = 0\n"
        '[[step]]\nsay = ""\nthen = 3\npause_ms = -1\n'
        '[[step]]\nend = true\nexpect = { heard = "x" }\n'
        '[[step]]\nsay = "a"\nexpect = { heard = "x", interrupted = "yes" }\n'
        '[expect]\noutcome = "fine"\n'
    )
    with pytest.raises(ScriptProblems) as refused:
        parse_script(text, "calls.toml")
    assert refused.value.problems == (
        "ms_per_word must be a positive whole number of ms up to 10,000 (got 0)",
        "step 1: say needs the caller's words as a non-empty string",
        "step 1: then is the rest of the line, as a string",
        "step 1: pause_ms must be a whole number of ms from 0 to 60,000 (got -1)",
        "step 2: expect is judged on the answer to a turn: it goes on a say, type, barge_in, "
        "silence_ms step, not on end",
        "step 3: unknown expectation(s) heard; use heard_contains, heard_not_contains, "
        "generated_contains, reply_within_ms, interrupted, no_errors",
        "step 3: expect.interrupted is true or false",
        "[expect]: outcome is one of completed, no_answer, not_reached, not_a_conversation "
        "(got 'fine')",
    )
    assert str(refused.value).startswith("calls.toml has 8 problems:\n  ms_per_word must be")


def test_thousands_of_problems_are_listed_as_a_screenful() -> None:
    with pytest.raises(ScriptProblems) as refused:
        parse_script("[[step]]\nsilence_ms = -1\n" * 5000, "many.toml")
    assert len(refused.value.problems) == 5000
    lines = str(refused.value).splitlines()
    assert lines[0] == "many.toml has 5,000 problems:" and lines[-1] == "  ... and 4,980 more"
    assert len(lines) == 22


def test_a_problem_shows_the_scripts_text_short_and_inert() -> None:
    key = "\\u001b[2J" + "k" * 1000
    with pytest.raises(ScriptProblems) as refused:
        parse_script(f'[[step]]\nsay = "a"\n"{key}" = 1\n')
    (problem,) = refused.value.problems
    assert "\x1b" not in problem and "\\x1b[2J" in problem and "more characters" in problem
    assert len(problem) < 400


@pytest.mark.parametrize("opening", ["[", "{a="])
def test_lists_or_tables_nested_thousands_deep_are_refused_in_words(opening: str) -> None:
    closing = "]" if opening == "[" else "}"
    deep = f"x = {opening * 3000}1{closing * 3000}\n[[step]]\nsay = 'a'\n"
    with pytest.raises(UserError, match="nests lists and tables in each other more than 32"):
        parse_script(deep)
    # Deeper than a script nests, shallow enough for the TOML reader: the same words.
    shallow = f"x = {opening * 40}1{closing * 40}\n[[step]]\nsay = 'a'\n"
    with pytest.raises(UserError, match="more than 32 deep"):
        parse_script(shallow)


def test_nesting_is_measured_without_recursion() -> None:
    deep: object = 1
    for _ in range(100_000):
        deep = [deep]
    assert nesting(deep) == 100_000
    assert nesting({"a": [1, {"b": 2}], "c": 3}) == 3 and nesting(5) == 0
    assert MAX_NESTING == 32


def test_a_script_file_is_read_no_further_than_a_script_can_be_long(tmp_path: Path) -> None:
    huge = tmp_path / "huge.toml"
    huge.write_text("# " + "x" * 4_000_000 + "\n[[step]]\nsay = 'a'\n")
    with pytest.raises(UserError, match="has 4,000,001 characters; a script has at most"):
        load_script(huge)
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe[[step]]")
    with pytest.raises(UserError, match="is not UTF-8 text"):
        load_script(binary)


def test_a_script_names_the_language_its_caller_speaks() -> None:
    from sandbox.wire import pb

    said = parse_script('language = "hi"\n[[step]]\nsay = "नमस्ते"\n')
    assert said.language == pb.LANGUAGE_HI
    assert parse_script('[[step]]\nsay = "Hello"\n').language is None
    for wrong, got in (('"mai"', "'mai'"), ('"xx"', "'xx'"), ("7", "int")):
        with pytest.raises(ScriptProblems) as refused:
            parse_script(f'language = {wrong}\n[[step]]\nsay = "x"\n')
        (problem,) = refused.value.problems
        assert problem.startswith("language must be one the caller can speak (espeak-ng): en, de")
        assert problem.endswith(f"(got {got})")
