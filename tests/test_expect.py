"""Expectations in caller scripts: how they are read, and how a call's answer is judged."""

from __future__ import annotations

import msgspec
import pytest

from sandbox.call.effects import EndedBy
from sandbox.call.outcome import Outcome
from sandbox.call.units import Fate
from sandbox.caller.expect import (
    Answer,
    StepMark,
    answer,
    check_end,
    check_step,
    contains,
)
from sandbox.caller.script import parse_script
from sandbox.errors import UserError
from sandbox.judges.entities import ValueKind
from sandbox.judges.readback import ReadbackStatus
from sandbox.record.report import (
    REPORT_VERSION,
    CallRecord,
    ErrorReport,
    Report,
    UnitReport,
    ValueReadBack,
)
from sandbox.wire.direction import Direction

SCRIPT = """
[[step]]
say = "What are your opening hours?"
expect = { heard_contains = ["nine", "five pm"], reply_within_ms = 1500, no_errors = true }
[[step]]
barge_in = "Sorry, Sunday?"
expect.heard_not_contains = "closed"
expect.interrupted = false

[expect]
outcome = "completed"
record.caller_name = "Ada"
record.readbacks = [{ kind = "phone", status = "confirmed" }]
"""


def _unit(speech_id: int, turn_id: int, generated: str, heard: str) -> UnitReport:
    return UnitReport(
        speech_id=speech_id,
        turn_id=turn_id,
        generated=generated,
        relayed=generated,
        heard=heard,
        interrupted=heard != generated,
        fate=Fate.PLAYED if heard == generated else Fate.BARGED,
        words_heard=len(heard.split()),
        words_total=len(generated.split()),
        discarded=(),
    )


def _record(**changes: object) -> CallRecord:
    fields: dict[str, object] = {
        "outcome": "completed",
        "reason": "",
        "below_floor": False,
        "floor": "",
        "caller_lines": 2,
        "caller_words": 9,
        "summary": "",
        "caller_name": "Ada",
        "entities": (),
        "readbacks": (
            ValueReadBack(
                turn=1,
                kind=ValueKind.PHONE,
                value="07700900123",
                said="oh seven",
                status=ReadbackStatus.CONFIRMED,
                speech_id=2,
                reply_turn=1,
            ),
        ),
        "addressed_as": (),
        "findings": (),
    }
    return CallRecord(**{**fields, **changes})  # type: ignore[arg-type]


def _report(units: tuple[UnitReport, ...] = (), errors: tuple[ErrorReport, ...] = ()) -> Report:
    return Report(
        report_version=REPORT_VERSION,
        session_id="s",
        brain_url="ws://x",
        started_at="",
        outcome=Outcome.COMPLETED,
        ended_by=EndedBy.CALLER,
        end_detail="",
        settings="",
        watermark=0,
        caller_turns=(),
        units=units,
        steps=(),
        errors=errors,
        alignment_skips=0,
        record=_record(),
        frames=(),
    )


def test_a_script_reads_its_expectations() -> None:
    script = parse_script(SCRIPT)
    first, second = (step.expect for step in script.steps)
    assert first is not None and second is not None and script.expect is not None
    assert first.heard_contains == ("nine", "five pm")
    assert first.reply_within_ms == 1500 and first.no_errors is True
    assert second.heard_not_contains == ("closed",) and second.interrupted is False
    assert script.expect.outcome == "completed"
    assert script.expect.record["caller_name"] == "Ada"
    assert script.expects and not parse_script('[[step]]\nsay = "hi"').expects


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('[[step]]\nsay = "hi"\nexpect = { heard = "x" }', "unknown expectation(s) heard; use"),
        ('[[step]]\nsay = "hi"\nexpect = { reply_within_ms = 0 }', "positive whole number"),
        ('[[step]]\nsay = "hi"\nexpect = { interrupted = "yes" }', "true or false"),
        ('[[step]]\nsay = "hi"\nexpect = { heard_contains = "" }', "is words"),
        ("[[step]]\nend = true\nexpect = { no_errors = true }", "not on end"),
        ('[[step]]\nsay = "hi"\n[expect]\nlatency = 3', "unknown expectation(s) latency"),
        ('[[step]]\nsay = "hi"\n[expect]\noutcome = "fine"', "outcome is one of completed"),
        ('[[step]]\nsay = "hi"\n[expect]\nrecord.name = "A"', "unknown record field 'name'"),
        (
            '[[step]]\nsay = "hi"\n[expect]\nrecord.readbacks = [{ colour = "red" }]',
            "unknown key(s) colour; use turn, kind",
        ),
    ],
)
def test_a_wrong_expectation_is_refused_in_words(text: str, words: str) -> None:
    with pytest.raises(UserError) as refused:
        parse_script(text)
    assert words in str(refused.value)


def test_the_valid_keys_are_listed() -> None:
    with pytest.raises(UserError) as refused:
        parse_script('[[step]]\nsay = "hi"\nexpect = { heard = "x" }')
    assert "heard_contains, heard_not_contains, generated_contains, reply_within_ms" in str(
        refused.value
    )


def test_words_are_matched_as_words_whatever_their_case() -> None:
    assert contains("We open at NINE, until five.", "nine")
    assert contains("We open at nine, until five.", "Until Five")
    assert not contains("ninety", "nine")
    assert not contains("nine until", "until nine")


def test_an_answer_is_the_units_of_the_steps_turns_and_its_errors() -> None:
    units = (
        _unit(1, 0, "Hello.", "Hello."),
        _unit(2, 1, "We open at nine until five.", "We open at"),
        _unit(3, 2, "Sunday too.", "Sunday too."),
    )
    errors = (
        ErrorReport(t_ms=1200, dir=Direction.IN, code="INTERNAL", message="boom", fatal=False),
        ErrorReport(t_ms=3000, dir=Direction.IN, code="INTERNAL", message="later", fatal=False),
    )
    mark = StepMark(1, "say", at_ms=1000, turn_end_ms=1000, turns=[1])
    got = answer(mark, 2500, _report(units, errors), {1: 50, 2: 1400, 3: 2800})
    assert got == Answer(
        heard="We open at",
        generated="We open at nine until five.",
        interrupted=True,
        reply_ms=400,
        errors=("INTERNAL: boom",),
    )


def test_each_unmet_expectation_is_a_failure_with_what_was_heard() -> None:
    script = parse_script(SCRIPT)
    expect = script.steps[0].expect
    assert expect is not None
    got = Answer("We open at", "We open at nine until five pm.", True, 1800, ("INTERNAL: x",))
    failures = [str(f) for f in check_step("step 1", expect, got)]
    assert failures == [
        "step 1: expected heard_contains 'nine'; heard 'We open at'",
        "step 1: expected heard_contains 'five pm'; heard 'We open at'",
        "step 1: expected reply_within_ms 1500; took 1800 ms; heard 'We open at'",
        "step 1: expected no_errors true; errors: 'INTERNAL: x'",
    ]
    whole = Answer("We open at nine until five pm.", "", False, 900, ())
    assert check_step("step 1", expect, whole) == []


def test_text_from_the_brain_is_shown_escaped() -> None:
    script = parse_script('[[step]]\nsay = "hi"\nexpect = { heard_contains = "bye" }')
    expect = script.steps[0].expect
    assert expect is not None
    (failure,) = check_step("step 1", expect, Answer("\x1b[2Jhi\nthere", "", False, 10, ()))
    assert str(failure).endswith("heard '\\x1b[2Jhi\\nthere'")


def test_the_end_of_a_call_is_judged_on_its_outcome_and_record() -> None:
    expect = parse_script(SCRIPT).expect
    assert expect is not None
    assert check_end(expect, _report()) == []
    wrong = msgspec.structs.replace(
        _report(), outcome="no_answer", record=_record(caller_name=None, readbacks=())
    )
    assert [str(f) for f in check_end(expect, wrong)] == [
        "end of call: expected outcome completed; got no_answer",
        "end of call: expected record.caller_name = 'Ada'; got None",
        "end of call: expected record.readbacks with "
        "{'kind': 'phone', 'status': 'confirmed'}; got []",
    ]
