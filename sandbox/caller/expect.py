"""Expectations in a caller script, and checking them against what the call did.

A step that mints a caller turn (``say``, ``type``, ``barge_in``) or an idle turn
(``silence_ms``) may carry ``expect``, judged on that step's *answer*: every unit the brain
spoke on the turn(s) the step minted, as they ended (played out, or cut)::

    [[step]]
    say = "What are your opening hours?"
    expect = { heard_contains = "nine", reply_within_ms = 1500, no_errors = true }

A top-level ``[expect]`` table is judged on the whole call once it has ended::

    [expect]
    outcome = "completed"
    record.caller_name = "Ada"
    record.readbacks = [{ kind = "phone", status = "confirmed" }]

Words are matched case-insensitively, as words (``"nine"`` is not in ``"ninety"``;
punctuation is ignored). Everything here is pure: the call's report and the runner's marks
in, :class:`Failure` values out; every text from the call is shown through
:func:`~sandbox.record.plain_text.visible`, so a failure can be printed or put in a file
as it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from sandbox.call.core import shortened
from sandbox.call.outcome import Outcome
from sandbox.caller.script_limits import (
    MAX_PHRASE_CHARS,
    MAX_PHRASES,
    MAX_RECORD_ITEMS,
    REPLY_WITHIN_MS,
    shown_value,
)
from sandbox.record.plain_text import quoted, visible
from sandbox.record.report import (
    AddressedAs,
    CallRecord,
    Report,
    ValueHeard,
    ValueReadBack,
    record_json,
)

#: The step kinds whose answer can be judged: each mints a turn the brain answers.
EXPECTING_KINDS = ("say", "type", "barge_in", "silence_ms")
#: The keys of a step's ``expect``, as a refusal lists them.
STEP_KEYS = (
    "heard_contains",
    "heard_not_contains",
    "generated_contains",
    "reply_within_ms",
    "interrupted",
    "no_errors",
)
#: The keys of the script's ``[expect]`` table.
END_KEYS = ("outcome", "no_errors", "record")
OUTCOMES = (Outcome.COMPLETED, Outcome.NO_ANSWER, Outcome.NOT_REACHED, Outcome.NOT_A_CONVERSATION)
#: The record's list fields, each with the struct of its items (None: any keys, the findings).
_RECORD_LISTS: dict[str, type[msgspec.Struct] | None] = {
    "entities": ValueHeard,
    "readbacks": ValueReadBack,
    "addressed_as": AddressedAs,
    "findings": None,
}
_RECORD_FIELDS = tuple(f.name for f in msgspec.structs.fields(CallRecord))
_WORD = re.compile(r"[\w']+")
#: How much of what the brain said a failure quotes.
MAX_SAID_CHARS = 500
#: How many of the errors that crossed a failure quotes.
MAX_ERRORS_LISTED = 5


@dataclass(frozen=True)
class StepExpect:
    """What a step's answer must be; an empty tuple or None: not checked."""

    heard_contains: tuple[str, ...] = ()
    heard_not_contains: tuple[str, ...] = ()
    generated_contains: tuple[str, ...] = ()
    reply_within_ms: int | None = None
    interrupted: bool | None = None
    no_errors: bool | None = None


@dataclass(frozen=True)
class EndExpect:
    """What the whole call must have come to: its outcome, its errors, its record's fields
    (a list field's tables must each match one item of the list, on the keys given)."""

    outcome: str | None = None
    no_errors: bool | None = None
    record: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Failure:
    """One expectation that did not hold: where, what was expected, what happened."""

    where: str
    expected: str
    got: str

    def __str__(self) -> str:
        return f"{self.where}: expected {self.expected}; {self.got}"


@dataclass
class StepMark:
    """What the script's runner saw of one step as it played (times on the call's clock)."""

    index: int  # from 1, as notes and failures name steps
    kind: str
    #: When the caller began the step (its voice, its typing, its silence).
    at_ms: int
    #: When the caller's turn ended: the line committed or spoken out, the idle turn sent.
    turn_end_ms: int | None = None
    #: The turns the step minted (a real voice's line may be heard as two).
    turns: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Answer:
    """A step's answer: the units the brain spoke on the step's turns, and the errors that
    crossed while it was the caller's latest step."""

    heard: str
    generated: str
    interrupted: bool
    #: End of the caller's turn to the answer's first word at the output; None: no audio.
    reply_ms: int | None
    errors: tuple[str, ...]


# ------------------------------------------------------------------------------- parsing


def parse_step_expect(where: str, kind: str | None, raw: object, problems: list[str]) -> StepExpect:
    """A step's ``expect`` table (``kind``: the step's, None when it has none that reads);
    each problem found is added to ``problems``, naming the step, the key and the fix."""
    if kind is not None and kind not in EXPECTING_KINDS:
        problems.append(
            f"{where}: expect is judged on the answer to a turn: it goes on a "
            f"{', '.join(EXPECTING_KINDS)} step, not on {kind}"
        )
        return StepExpect()
    table = _table(where, raw, STEP_KEYS, problems)
    within = table.get("reply_within_ms")
    if within is not None and not REPLY_WITHIN_MS.holds(within):
        problems.append(f"{where}: expect.{REPLY_WITHIN_MS.refusal('reply_within_ms', within)}")
    return StepExpect(
        heard_contains=_phrases(where, table, "heard_contains", problems),
        heard_not_contains=_phrases(where, table, "heard_not_contains", problems),
        generated_contains=_phrases(where, table, "generated_contains", problems),
        reply_within_ms=within,
        interrupted=_flag(where, table, "interrupted", problems),
        no_errors=_flag(where, table, "no_errors", problems),
    )


def parse_end_expect(raw: object, problems: list[str]) -> EndExpect:
    """The script's top-level ``[expect]`` table; each problem is added to ``problems``."""
    where = "[expect]"
    table = _table(where, raw, END_KEYS, problems)
    outcome = table.get("outcome")
    if outcome is not None and outcome not in OUTCOMES:
        problems.append(
            f"{where}: outcome is one of {', '.join(OUTCOMES)} (got {shown_value(outcome)})"
        )
    record = table.get("record", {})
    if not isinstance(record, dict):
        problems.append(f'{where}: record is a table, e.g. record.caller_name = "Ada"')
        record = {}
    for name, value in record.items():
        if name not in _RECORD_FIELDS:
            problems.append(
                f"{where}: unknown record field {name!r}: the record has "
                f"{', '.join(_RECORD_FIELDS)}"
            )
        elif name in _RECORD_LISTS:
            _check_items(f"{where} record.{name}", value, _RECORD_LISTS[name], problems)
    return EndExpect(outcome, _flag(where, table, "no_errors", problems), record)


def _table(where: str, raw: object, keys: tuple[str, ...], problems: list[str]) -> dict[str, Any]:
    """``raw``'s known keys (none when it is no table); its unknown ones are a problem."""
    if not isinstance(raw, dict):
        problems.append(f'{where}: expect is a table, e.g. expect = {{ heard_contains = "hi" }}')
        return {}
    unknown = sorted(set(raw) - set(keys))
    if unknown:
        problems.append(
            f"{where}: unknown expectation(s) {', '.join(unknown)}; use {', '.join(keys)}"
        )
    return {key: value for key, value in raw.items() if key in keys}


def _phrases(
    where: str, table: Mapping[str, Any], key: str, problems: list[str]
) -> tuple[str, ...]:
    value = table.get(key, ())
    phrases = [value] if isinstance(value, str) else value
    if not isinstance(phrases, list | tuple) or not all(
        isinstance(p, str) and _words(p) for p in phrases
    ):
        problems.append(f'{where}: expect.{key} is words, or a list of them: "nine", ["a", "b"]')
        return ()
    if len(phrases) > MAX_PHRASES:
        problems.append(
            f"{where}: expect.{key} lists {len(phrases):,} phrases; at most {MAX_PHRASES}"
        )
    longest = max((len(p) for p in phrases), default=0)
    if longest > MAX_PHRASE_CHARS:
        problems.append(
            f"{where}: expect.{key} has a phrase of {longest:,} characters; at most "
            f"{MAX_PHRASE_CHARS:,}"
        )
    return tuple(phrases)


def _flag(where: str, table: Mapping[str, Any], key: str, problems: list[str]) -> bool | None:
    value = table.get(key)
    if value is not None and not isinstance(value, bool):
        problems.append(f"{where}: expect.{key} is true or false")
        return None
    return value


def _check_items(
    where: str, value: object, item: type[msgspec.Struct] | None, problems: list[str]
) -> None:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        problems.append(f'{where}: a list of tables, e.g. [{{ kind = "phone" }}]')
        return
    if len(value) > MAX_RECORD_ITEMS:
        problems.append(f"{where}: {len(value):,} tables; at most {MAX_RECORD_ITEMS}")
    if item is None:
        return
    names = [f.name for f in msgspec.structs.fields(item)]
    for table in value:
        unknown = sorted(set(table) - set(names))
        if unknown:
            problems.append(f"{where}: unknown key(s) {', '.join(unknown)}; use {', '.join(names)}")
            return  # one line for the list, not one per table


# ------------------------------------------------------------------------------ checking


def answer(
    mark: StepMark, next_at_ms: int | None, report: Report, first_audio: Mapping[int, int]
) -> Answer:
    """The answer to ``mark``'s step in ``report``: the units on its turns, and the errors
    that crossed from its start until the next step began (``next_at_ms``; None: the end).
    ``first_audio`` holds each unit's first word's time at the output, by speech id."""
    units = [u for u in report.units if u.turn_id in mark.turns]
    starts = [first_audio[u.speech_id] for u in units if u.speech_id in first_audio]
    reply_ms = None
    if starts and mark.turn_end_ms is not None:
        reply_ms = max(0, min(starts) - mark.turn_end_ms)
    errors = tuple(
        f"{e.code}: {e.message}"
        for e in report.errors
        if e.t_ms >= mark.at_ms and (next_at_ms is None or e.t_ms < next_at_ms)
    )
    return Answer(
        heard=" ".join(u.heard for u in units if u.heard),
        generated=" ".join(u.generated for u in units if u.generated),
        interrupted=any(u.interrupted for u in units),
        reply_ms=reply_ms,
        errors=errors,
    )


def check_step(where: str, expect: StepExpect, got: Answer) -> list[Failure]:
    """Every expectation of a step that its answer does not meet."""
    failures: list[Failure] = []
    heard = f"heard {_said(got.heard)}"

    def fail(expected: str, what: str) -> None:
        failures.append(Failure(where, expected, what))

    for phrase in expect.heard_contains:
        if not contains(got.heard, phrase):
            fail(f"heard_contains {quoted(phrase)}", heard)
    for phrase in expect.heard_not_contains:
        if contains(got.heard, phrase):
            fail(f"heard_not_contains {quoted(phrase)}", heard)
    for phrase in expect.generated_contains:
        if not contains(got.generated, phrase):
            fail(f"generated_contains {quoted(phrase)}", f"generated {_said(got.generated)}")
    within = expect.reply_within_ms
    if within is not None and (got.reply_ms is None or got.reply_ms > within):
        took = "no reply was heard" if got.reply_ms is None else f"took {got.reply_ms} ms"
        fail(f"reply_within_ms {within}", f"{took}; {heard}")
    if expect.interrupted is not None and got.interrupted != expect.interrupted:
        fail(f"interrupted {str(expect.interrupted).lower()}", heard)
    if expect.no_errors is not None and (not got.errors) != expect.no_errors:
        fail(f"no_errors {str(expect.no_errors).lower()}", _errors(got.errors))
    return failures


def check_end(expect: EndExpect, report: Report) -> list[Failure]:
    """Every expectation of the script's ``[expect]`` that the ended call does not meet."""
    where = "end of call"
    failures: list[Failure] = []
    if expect.outcome is not None and report.outcome != expect.outcome:
        detail = f" ({quoted(report.end_detail)})" if report.end_detail else ""
        failures.append(
            Failure(where, f"outcome {expect.outcome}", f"got {report.outcome}{detail}")
        )
    errors = tuple(f"{e.code}: {e.message}" for e in report.errors)
    if expect.no_errors is not None and (not errors) != expect.no_errors:
        failures.append(
            Failure(where, f"no_errors {str(expect.no_errors).lower()}", _errors(errors))
        )
    if not expect.record:
        return failures
    if not isinstance(report.record, CallRecord):
        failures.append(Failure(where, "a call record", "the call left none (it was cut short)"))
        return failures
    record = record_json(report.record)
    for name, want in expect.record.items():
        have = record.get(name)
        if name in _RECORD_LISTS:
            for table in want:
                if not any(_matches(table, item) for item in have or ()):
                    failures.append(
                        Failure(where, f"record.{name} with {_shown(table)}", f"got {_shown(have)}")
                    )
        elif have != want:
            failures.append(
                Failure(where, f"record.{name} = {_shown(want)}", f"got {_shown(have)}")
            )
    return failures


def contains(text: str, phrase: str) -> bool:
    """Whether ``phrase``'s words occur in ``text`` in a row, case-insensitively."""
    words, wanted = _words(text), _words(phrase)
    return any(words[i : i + len(wanted)] == wanted for i in range(len(words) - len(wanted) + 1))


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def _said(text: str) -> str:
    """What the brain said, quoted for a failure: its start, when it ran long (a failure line
    is read, and may be repeated for each phrase of an expectation)."""
    return quoted(shortened(text, MAX_SAID_CHARS))


def _matches(want: Mapping[str, Any], item: Mapping[str, Any]) -> bool:
    return all(item.get(key) == value for key, value in want.items())


def _errors(errors: Sequence[str]) -> str:
    """The errors that crossed, the first few quoted and the rest counted."""
    if not errors:
        return "no error crossed"
    listed = [_said(e) for e in errors[:MAX_ERRORS_LISTED]]
    if len(errors) > MAX_ERRORS_LISTED:
        listed.append(f"and {len(errors) - MAX_ERRORS_LISTED:,} more")
    return "errors: " + "; ".join(listed)


def _shown(value: object) -> str:
    """A value from the record or the script, as text that controls nothing."""
    return quoted(value) if isinstance(value, str) else visible(repr(value))
