"""The call record's judgements on their own: read-backs on heard text, the floor at its
edges, names and forms of address, promises with and without a tool step."""

from __future__ import annotations

import pytest

from sandbox.call.floor import measure
from sandbox.call.outcome import Outcome
from sandbox.judges.entities import values
from sandbox.judges.names import addressed_as, introduced, is_form_of_address, refused
from sandbox.judges.promises import booked, promises_follow_up
from sandbox.judges.readback import (
    BotLine,
    CallerTurn,
    answer,
    judge,
)
from sandbox.judges.readback import (
    ReadbackStatus as Status,
)
from sandbox.record.call_record import Heard, build
from sandbox.record.report import record_json

PHONE_LINE = "my number is oh seven seven double four five six seven eight nine zero"
READ_BACK = "Thanks. That's 07744 567890, is that right?"


def _judge(bot: list[BotLine], reply: str | None, *, ended: bool = True) -> str | None:
    (value,) = values(PHONE_LINE)
    callers = [CallerTurn(2, PHONE_LINE)] + ([CallerTurn(3, reply)] if reply else [])
    verdict = judge(value, 2, bot, callers, ended=ended)
    return None if verdict is None else verdict.status


def test_a_read_back_heard_whole_and_agreed_is_confirmed() -> None:
    assert _judge([BotLine(2, 2, READ_BACK, READ_BACK)], "Yes, that's right") == Status.CONFIRMED


def test_a_read_back_the_caller_answers_with_another_number_is_corrected() -> None:
    bot = [BotLine(2, 2, READ_BACK, READ_BACK)]
    assert (
        _judge(bot, "oh seven seven double four five six seven eight nine one") == Status.CORRECTED
    )
    assert _judge(bot, "No, that's wrong") == Status.CORRECTED


def test_a_value_never_read_back_is_unconfirmed() -> None:
    bot = [BotLine(2, 2, "Thanks!", "Thanks!"), BotLine(3, 3, "Anything else?", "Anything else?")]
    assert _judge(bot, "yes") == Status.UNCONFIRMED


def test_a_read_back_cut_before_the_value_was_heard_is_not_heard() -> None:
    cut = BotLine(2, 2, READ_BACK, "Thanks. That's")  # the caller cut in: heard only this
    assert _judge([cut, BotLine(3, 3, "Go on.", "Go on.")], "yes") == Status.NOT_HEARD
    half = BotLine(2, 2, READ_BACK, "Thanks. That's 07744")  # the value, only half heard
    assert _judge([half], "yes") == Status.NOT_HEARD


def test_the_second_unit_may_carry_the_read_back_but_not_the_third() -> None:
    first, third = BotLine(2, 2, "Thanks.", "Thanks."), BotLine(4, 3, READ_BACK, READ_BACK)
    second = BotLine(3, 2, READ_BACK, READ_BACK)
    assert _judge([first, second], "yes") == Status.CONFIRMED
    assert (
        _judge([first, BotLine(3, 2, "One moment.", "One moment."), third], "y")
        == Status.UNCONFIRMED
    )


def test_a_read_back_is_undecided_while_it_plays_or_before_the_caller_answers() -> None:
    playing = BotLine(2, 2, READ_BACK, "Thanks.", final=False)
    assert _judge([playing], None, ended=False) is None
    assert _judge([BotLine(2, 2, READ_BACK, READ_BACK)], None, ended=False) is None
    assert _judge([BotLine(2, 2, READ_BACK, READ_BACK)], None, ended=True) == Status.UNCONFIRMED


@pytest.mark.parametrize(
    ("line", "status"),
    [
        ("yes", Status.CONFIRMED),
        ("Yeah, that's it.", Status.CONFIRMED),
        ("correct", Status.CONFIRMED),
        ("spot on, thanks", Status.CONFIRMED),
        ("no problem", Status.CONFIRMED),
        ("no", Status.CORRECTED),
        ("Nope.", Status.CORRECTED),
        ("not quite", Status.CORRECTED),
        ("actually it ends in one", Status.CORRECTED),
        ("that's not right", Status.CORRECTED),
        ("it's oh seven seven double four five six seven eight nine one", Status.CORRECTED),
        ("what are your opening hours?", Status.UNCONFIRMED),
        ("can I give you my work number too, 020 7946 0958?", Status.UNCONFIRMED),
    ],
)
def test_how_a_caller_answers_a_read_back(line: str, status: str) -> None:
    (value,) = values(PHONE_LINE)
    assert answer(value, line) == status


@pytest.mark.parametrize(
    ("lines", "below"),
    [
        ([], True),
        (["hi"], True),
        (["hi there"], True),
        (["one two three four"], True),
        (["one two three four five six seven eight nine ten"], False),  # 1 line, 10 words
        (["yes", "no thanks now"], False),  # 2 lines, 4 words
        (["yes please", "no thanks now"], False),  # 2 lines, 5 words
        (["one two three four five"], False),  # 1 line, 5 words
    ],
)
def test_the_floor_at_its_edges(lines: list[str], below: bool) -> None:
    assert measure(lines).below is below


def test_below_the_floor_the_record_says_why_and_skips_the_summary() -> None:
    record = record_json(
        build(Heard((CallerTurn(2, "hi there"),), (), (), 2, True, Outcome.NOT_A_CONVERSATION))
    )
    assert record["below_floor"] is True
    assert record["floor"].startswith("1 caller line and 2 words: below the floor")
    assert record["summary"].startswith("skipped: ")


@pytest.mark.parametrize(
    "word",
    [
        "sir", "Madam", "love", "Mate", "boss", "buddy", "pal", "darling", "chief", "Mum",
        "Mom", "Dad", "Nan", "Gran", "Granny", "Grandad", "Auntie", "Uncle", "Doctor",
    ],
)  # fmt: skip
def test_a_form_of_address_is_never_a_name(word: str) -> None:
    assert is_form_of_address(word)
    assert introduced(f"call me {word}") is None and refused(f"call me {word}") == word
    assert introduced(f"my name is {word}") is None


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("my name is john", "John"),
        ("Hi, this is Sarah", "Sarah"),
        ("Priya speaking", "Priya"),
        ("I'm fine thanks", None),
        ("It's Tuesday", None),
        ("Hi, it's Mum here.", None),
        ("This is London calling", None),
        ("I'm retired", None),
    ],
)
def test_the_name_a_caller_gives(line: str, name: str | None) -> None:
    assert introduced(line) == name


@pytest.mark.parametrize(
    ("bot", "words"),
    [
        ("Thanks, Sarah. How can I help?", ["Sarah"]),
        ("Hello John!", ["John"]),
        ("Is that right, Sarah?", ["Sarah"]),
        ("Cheers, Mate.", ["Mate"]),
        ("We open at nine, Monday to Friday.", []),
        ("Thanks, Monday works.", []),
    ],
)
def test_who_the_bot_addressed(bot: str, words: list[str]) -> None:
    assert addressed_as(bot) == words


def _unit(sid: int, turn: int, heard: str) -> BotLine:
    return BotLine(sid, turn, heard, heard)


def test_an_invented_name_and_the_caller_are_flagged_a_form_of_address_is_not() -> None:
    heard = Heard(
        callers=(CallerTurn(2, "my name is John"), CallerTurn(3, "can I book a table")),
        bot=(
            _unit(1, 2, "Thanks, John."),
            _unit(2, 3, "Of course, Sarah. I'll tell them the caller wants a table."),
            _unit(3, 3, "Cheers, Mate."),
        ),
        steps=(),
        turn=3,
        ended=True,
        outcome=Outcome.COMPLETED,
    )
    record = record_json(build(heard))
    assert record["caller_name"] == "John"
    assert [a["name"] for a in record["addressed_as"]] == ["John", "Sarah"]
    kinds = [(f["kind"], f["speech_id"]) for f in record["findings"]]
    assert kinds == [("name_not_from_caller", 2), ("called_the_caller", 2)]


@pytest.mark.parametrize(
    ("line", "promise"),
    [
        ("I'll call you back at three tomorrow.", True),
        ("We'll ring you tomorrow morning.", True),
        ("Someone will get back to you this afternoon.", True),
        ("I'll send you the details on the 23rd.", True),
        ("I'll call you back.", False),  # no time: nothing to book
        ("We open at nine.", False),
    ],
)
def test_a_promise_of_a_follow_up_at_a_time(line: str, promise: bool) -> None:
    assert promises_follow_up(line) is promise


def test_a_promise_is_unbooked_without_a_tool_step_on_its_turn() -> None:
    def findings(steps: tuple[tuple[int, str], ...]) -> list[str]:
        heard = Heard(
            callers=(CallerTurn(2, "can you call me back tomorrow at three"),),
            bot=(_unit(1, 2, "Sure, I'll call you back at three tomorrow."),),
            steps=steps,
            turn=2,
            ended=True,
            outcome=Outcome.COMPLETED,
        )
        return [f["kind"] for f in record_json(build(heard))["findings"]]

    assert findings(()) == ["promised_unbooked"]
    assert findings(((2, "model"),)) == ["promised_unbooked"]  # a model call books nothing
    assert findings(((2, "tool"),)) == []
    assert findings(((1, "tool"),)) == ["promised_unbooked"]  # another turn's tool
    assert booked(["Tool"]) and not booked(["model"])
