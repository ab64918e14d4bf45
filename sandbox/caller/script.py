"""Caller scripts: a TOML list of steps a headless call plays as the caller.

```toml
ms_per_word = 250                 # optional: the simulated speaking rate

[[step]]
say = "What are your opening hours?"
[[step]]
say = "Can I come on"             # a thought paused for 500 ms, then resumed
then = "Saturday morning?"
pause_ms = 500
[[step]]
barge_in = "Sorry, what about Sunday?"
after_words = 4                   # spoken over the bot once 4 words of its reply played
[[step]]
backchannel = "mm-hmm"            # over the bot; must not cut it
after_words = 2
[[step]]
type = "I'd rather type this"     # send-text from the app
[[step]]
rtvi = { type = "ui-event", data = { event = "tap", target = "pricing" } }
[[step]]
silence_ms = 9000                 # silent 9 s after the bot stops speaking, so idle can fire
[[step]]
end = true                        # hang up once the bot's answer has played out
```

A step that mints a turn may carry ``expect``, and the script an ``[expect]`` table, checked
by ``sandbox test`` (see :mod:`sandbox.caller.expect`).

``end = "now"`` hangs up at once, over whatever the bot is saying.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sandbox.caller.expect import (
    EndExpect,
    StepExpect,
    parse_end_expect,
    parse_step_expect,
    whole,
)
from sandbox.errors import UserError

#: The simulated speaking rate when the script does not set one (~170 words a minute).
DEFAULT_MS_PER_WORD = 350
KINDS = ("say", "barge_in", "backchannel", "type", "rtvi", "silence_ms", "end")
_EXTRA = {
    "say": {"then", "pause_ms"},
    "barge_in": {"after_words"},
    "backchannel": {"after_words"},
    "rtvi": set(),
}


@dataclass(frozen=True)
class Step:
    """One caller action. ``text`` for say/barge_in/backchannel/type; ``after_words`` for the
    over-the-bot kinds; ``rtvi_type``/``rtvi_data``/``rtvi_id`` for rtvi; ``ms`` for silence;
    ``now`` for an end that does not wait for the bot's answer to play out."""

    kind: str
    text: str = ""
    after_words: int = 0
    rtvi_type: str = ""
    rtvi_data: str = "{}"
    rtvi_id: str | None = None
    ms: int = 0
    #: A say that stops mid-thought for ``pause_ms`` and goes on with ``then``.
    then: str = ""
    pause_ms: int = 0
    now: bool = False
    #: What the step's answer must be (``sandbox test``); None: nothing is checked.
    expect: StepExpect | None = None


@dataclass(frozen=True)
class Script:
    """A parsed caller script."""

    steps: tuple[Step, ...]
    ms_per_word: int | None = None
    #: What the whole call must come to (the ``[expect]`` table); None: nothing is checked.
    expect: EndExpect | None = None

    @property
    def expects(self) -> bool:
        """Whether the script checks anything at all."""
        return self.expect is not None or any(s.expect is not None for s in self.steps)


def parse_step(index: int, raw: Any) -> Step:
    """One ``[[step]]`` table (``index`` from 0 names it in errors)."""
    where = f"step {index + 1}"
    if not isinstance(raw, dict):
        raise UserError(f'{where}: expected a table like `say = "..."`')
    if "expect" not in raw:
        return _action(where, raw)
    action = {k: v for k, v in raw.items() if k != "expect"}
    step = _action(where, action)
    return replace(step, expect=parse_step_expect(where, step.kind, raw["expect"]))


def _action(where: str, raw: dict[str, Any]) -> Step:
    """What the caller does in a step (its ``expect`` aside)."""
    kinds = [k for k in KINDS if k in raw]
    if len(kinds) != 1:
        raise UserError(f"{where}: give exactly one of {', '.join(KINDS)} (got {sorted(raw)})")
    kind = kinds[0]
    unknown = set(raw) - {kind} - _EXTRA.get(kind, set())
    if unknown:
        raise UserError(f"{where}: unknown key(s) {', '.join(sorted(unknown))} for {kind}")
    value = raw[kind]
    if kind in ("say", "barge_in", "backchannel", "type"):
        if not isinstance(value, str) or not value.strip():
            raise UserError(f"{where}: {kind} needs the caller's words as a non-empty string")
        after = raw.get("after_words", 2 if kind != "say" else 0)
        if not whole(after) or after < 0:
            raise UserError(f"{where}: after_words must be a whole number ≥ 0")
        then, pause = raw.get("then", ""), raw.get("pause_ms", 0)
        if not isinstance(then, str) or not whole(pause) or pause < 0:
            raise UserError(f"{where}: then is the rest of the line, pause_ms whole ms ≥ 0")
        return Step(kind, text=value, after_words=after, then=then, pause_ms=pause)
    if kind == "rtvi":
        if not isinstance(value, dict) or not isinstance(value.get("type"), str):
            raise UserError(f'{where}: rtvi needs a table with a `type` (e.g. "ui-event")')
        rid = value.get("id")
        if rid is not None and not isinstance(rid, str):
            raise UserError(f'{where}: an rtvi id is a string (e.g. id = "r1")')
        try:
            # allow_nan=False: NaN is not JSON, and a brain's parser would refuse it.
            data = json.dumps(value.get("data", {}), allow_nan=False)
        except (TypeError, ValueError):
            raise UserError(
                f"{where}: rtvi data must be plain JSON values (no dates, times, nan or inf)"
            ) from None
        return Step(kind, rtvi_type=value["type"], rtvi_data=data, rtvi_id=rid)
    if kind == "silence_ms":
        if not whole(value) or value < 0:
            raise UserError(f"{where}: silence_ms must be a whole number of milliseconds ≥ 0")
        return Step(kind, ms=value)
    if value is not True and value != "now":
        raise UserError(
            f'{where}: write `end = true` (once the answer has played out) or `end = "now"`'
        )
    return Step(kind, now=value == "now")


def toml_steps(text: str, source: str) -> tuple[dict[str, Any], list[Any]]:
    """A caller script's TOML (or a demo scene's) and its ``[[step]]`` tables."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{source} is not valid TOML: {exc}") from None
    steps = data.get("step", [])
    if not isinstance(steps, list) or not steps:
        raise UserError(f"{source} has no steps: add [[step]] tables (say, barge_in, ...)")
    return data, steps


def parse_script(text: str, source: str = "script") -> Script:
    """Parse a caller script; a mistake is a UserError naming the step and the fix."""
    data, steps = toml_steps(text, source)
    rate = data.get("ms_per_word")
    if rate is not None and (not whole(rate) or rate <= 0):
        raise UserError(f"{source}: ms_per_word must be a positive whole number")
    expect = data.get("expect")
    return Script(
        tuple(parse_step(i, raw) for i, raw in enumerate(steps)),
        rate,
        None if expect is None else parse_end_expect(source, expect),
    )


def load_script(path: Path) -> Script:
    """Read and parse a caller script file."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise UserError(f"cannot read the script {path}: {exc.strerror}") from None
    return parse_script(text, str(path))
