"""Fuzz target for the caller-script TOML loader.

An input is arbitrary text (first byte even) or a document assembled from the keys and
value shapes a script uses, wrong ones included. The loader must refuse in words
(UserError) or return steps whose fields hold what a call will do with them.
"""

from __future__ import annotations

import json
from dataclasses import fields

from sandbox.caller.expect import EndExpect, StepExpect
from sandbox.caller.script import KINDS, Script, Step, parse_script
from sandbox.errors import UserError
from sandbox_fuzz.draw import Draw
from sandbox_fuzz.guard import InvariantBroken

_KEYS = (*KINDS, "then", "pause_ms", "after_words", "ms_per_word", "expect", "other")
_VALUES = (
    '"What are your opening hours?"',
    '""',
    '"   "',
    '"now"',
    "0",
    "4",
    "-1",
    "true",
    "false",
    "1.5",
    "nan",
    "99999999999999999999999",
    "1979-05-27",
    "1979-05-27T07:32:00Z",
    "07:32:00",
    "[]",
    '[1, "a"]',
    '{ type = "ui-event", data = { event = "tap", target = "pricing" } }',
    '{ type = "ui-event", data = 1979-05-27 }',
    '{ type = "ui-event", data = { when = 07:32:00 } }',
    '{ type = "send-text", id = "r1", data = { content = "hi" } }',
    '{ type = "ui-event", id = 3 }',
    "{ type = 5 }",
    "{ data = 1 }",
    '"""two\nlines"""',
    '{ heard_contains = ["hours"], reply_within_ms = 800 }',
    '{ heard_contains = "hours", interrupted = 1 }',
    "{ reply_within_ms = -5, no_errors = true }",
    '{ generated_contains = [1], heard_not_contains = ["", "  "] }',
    '{ outcome = "completed", record = { caller_name = "Ada" } }',
    '{ record = { readbacks = [{ kind = "phone" }] }, bogus = 1 }',
)
_HEADS = ("[[step]]", "[[step]]", "[[step]]", "[step]", "[[other]]", "step = 5", "[expect]", "")
_EXPECTED_TYPES: dict[str, type | tuple[type, ...]] = {
    "kind": str,
    "text": str,
    "after_words": int,
    "rtvi_type": str,
    "rtvi_data": str,
    "rtvi_id": (str, type(None)),
    "ms": int,
    "then": str,
    "pause_ms": int,
    "now": bool,
    "expect": (StepExpect, type(None)),
}


def fuzz_script(data: bytes) -> None:
    """See the module doc."""
    draw = Draw(data)
    text = draw.text(2000) if draw.byte() % 2 == 0 else _document(draw)
    try:
        script = parse_script(text, "fuzz.toml")
    except UserError:
        return
    _check(script, text)


def _document(draw: Draw) -> str:
    lines = [f"ms_per_word = {draw.pick(_VALUES)}"] if draw.flip() else []
    for _ in range(draw.number(0, 5)):
        lines.append(draw.pick(_HEADS))
        for _ in range(draw.number(0, 3)):
            lines.append(f"{draw.pick(_KEYS)} = {draw.pick(_VALUES)}")
        if draw.number(0, 15) == 0:
            lines.append(draw.text(40))
    return "\n".join(lines)


def _check(script: Script, text: str) -> None:
    rate = script.ms_per_word
    if rate is not None and (type(rate) is not int or rate <= 0):
        raise InvariantBroken("caller scripts", f"ms_per_word {rate!r} from {text!r}")
    if not isinstance(script.expect, (EndExpect, type(None))):
        raise InvariantBroken("caller scripts", f"[expect] read as {script.expect!r}: {text!r}")
    for step in script.steps:
        _check_step(step, text)


def _check_step(step: Step, text: str) -> None:
    for spec in fields(step):
        value = getattr(step, spec.name)
        expected = _EXPECTED_TYPES[spec.name]
        # bool is an int to Python, never to a script: `after_words = true` is a mistake.
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise InvariantBroken("caller scripts", f"{step.kind}.{spec.name}={value!r}: {text!r}")
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            raise InvariantBroken("caller scripts", f"{step.kind}.{spec.name}={value}: {text!r}")
    if step.kind not in KINDS:
        raise InvariantBroken("caller scripts", f"a step of kind {step.kind!r}")
    json.loads(step.rtvi_data)  # what crosses to the brain as the frame's data
