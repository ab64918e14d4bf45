"""Caller scripts: a TOML list of steps a headless call plays as the caller.

```toml
ms_per_word = 250                 # optional: the simulated speaking rate
line = "pstn"                     # optional, real audio: the phone line (or a profile.toml)
language = "hi"                   # optional: the caller's language (default: en)

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
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sandbox.audio.voices import ESPEAK_LANGUAGES
from sandbox.call.core import shortened
from sandbox.caller.expect import (
    EndExpect,
    StepExpect,
    parse_end_expect,
    parse_step_expect,
)
from sandbox.caller.script_limits import (
    AFTER_WORDS,
    MAX_LINE_CHARS,
    MAX_NESTING,
    MAX_SCRIPT_CHARS,
    MAX_STEPS,
    MS_PER_WORD,
    PAUSE_MS,
    SILENCE_MS,
    nesting,
)
from sandbox.errors import UserError
from sandbox.line.profile import PROFILES
from sandbox.record.plain_text import visible
from sandbox.wire.catalog import LANGUAGE_BY_ISO

#: The simulated speaking rate when the script does not set one (~170 words a minute).
DEFAULT_MS_PER_WORD = 350
KINDS = ("say", "barge_in", "backchannel", "type", "rtvi", "silence_ms", "end")
_EXTRA = {
    "say": {"then", "pause_ms"},
    "barge_in": {"after_words"},
    "backchannel": {"after_words"},
    "rtvi": set(),
}
#: Problems a refusal lists; the rest are counted (thousands of mistakes read as a screenful).
MAX_PROBLEMS_LISTED = 20
#: A problem's length as shown (it may quote a key or a value of any length).
MAX_PROBLEM_CHARS = 300


class ScriptProblems(UserError):
    """Every problem found in a caller script, one line each naming where it is and the fix
    (``problems``); the message lists the first :data:`MAX_PROBLEMS_LISTED`."""

    def __init__(self, source: str, problems: Sequence[str]) -> None:
        # A key or a value quoted in a problem is the script's: shown short, controlling nothing.
        self.problems = tuple(visible(shortened(p, MAX_PROBLEM_CHARS)) for p in problems)
        if len(self.problems) == 1:
            super().__init__(f"{source}: {self.problems[0]}")
            return
        listed = [f"  {p}" for p in self.problems[:MAX_PROBLEMS_LISTED]]
        if len(self.problems) > MAX_PROBLEMS_LISTED:
            listed.append(f"  ... and {len(self.problems) - MAX_PROBLEMS_LISTED:,} more")
        super().__init__("\n".join([f"{source} has {len(self.problems):,} problems:", *listed]))


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
    #: The phone line a real-audio call of the script is on: a profile's name, or a profile
    #: file (relative to the script's folder); None: the command line's, or none.
    line: str | None = None
    #: The language the caller speaks (espeak-ng speaks a real-audio call's lines in it), and
    #: the call starts in on both legs unless the command line names one; None: English.
    language: int | None = None

    @property
    def expects(self) -> bool:
        """Whether the script checks anything at all."""
        return self.expect is not None or any(s.expect is not None for s in self.steps)


def parse_step(index: int, raw: Any) -> Step:
    """One ``[[step]]`` table (``index`` from 0 names it); a UserError says each of its
    problems."""
    problems: list[str] = []
    step = read_step(index, raw, problems)
    if step is None or problems:
        raise UserError("; ".join(problems))
    return step


def read_step(index: int, raw: Any, problems: list[str]) -> Step | None:
    """One ``[[step]]`` table, each problem found in it added to ``problems`` (naming the
    step by ``index``, from 0); None when it names no one action."""
    where = f"step {index + 1}"
    if not isinstance(raw, dict):
        problems.append(f'{where}: expected a table like `say = "..."`')
        return None
    action = {k: v for k, v in raw.items() if k != "expect"}
    kinds = [k for k in KINDS if k in action]
    if len(kinds) != 1:
        problems.append(f"{where}: give exactly one of {', '.join(KINDS)} (got {sorted(action)})")
    kind = kinds[0] if len(kinds) == 1 else None
    step = None if kind is None else _action(where, kind, action, problems)
    if "expect" in raw:
        expect = parse_step_expect(where, kind, raw["expect"], problems)
        step = None if step is None else replace(step, expect=expect)
    return step


def _action(where: str, kind: str, raw: dict[str, Any], problems: list[str]) -> Step | None:
    """What the caller does in a step of ``kind`` (its ``expect`` aside)."""
    unknown = set(raw) - {kind} - _EXTRA.get(kind, set())
    if unknown:
        problems.append(f"{where}: unknown key(s) {', '.join(sorted(unknown))} for {kind}")
    value = raw[kind]
    if kind in ("say", "barge_in", "backchannel", "type"):
        return _line(where, kind, raw, problems)
    if kind == "rtvi":
        return _rtvi(where, value, problems)
    if kind == "silence_ms":
        if not SILENCE_MS.holds(value):
            problems.append(f"{where}: {SILENCE_MS.refusal(kind, value)}")
            return None
        return Step(kind, ms=value)
    if value is not True and value != "now":
        problems.append(
            f'{where}: write `end = true` (once the answer has played out) or `end = "now"`'
        )
    return Step(kind, now=value == "now")


def _line(where: str, kind: str, raw: dict[str, Any], problems: list[str]) -> Step | None:
    """A step with the caller's words: said, typed, or over the bot."""
    before = len(problems)
    value = raw[kind]
    if not isinstance(value, str) or not value.strip():
        problems.append(f"{where}: {kind} needs the caller's words as a non-empty string")
    after = raw.get("after_words", 2 if kind != "say" else 0)
    if not AFTER_WORDS.holds(after):
        problems.append(f"{where}: {AFTER_WORDS.refusal('after_words', after)}")
    then, pause = raw.get("then", ""), raw.get("pause_ms", 0)
    if not isinstance(then, str):
        problems.append(f"{where}: then is the rest of the line, as a string")
    if not PAUSE_MS.holds(pause):
        problems.append(f"{where}: {PAUSE_MS.refusal('pause_ms', pause)}")
    for key, text in ((kind, value), ("then", then)):
        if isinstance(text, str) and len(text) > MAX_LINE_CHARS:
            problems.append(
                f"{where}: {key} has {len(text):,} characters; a line has at most "
                f"{MAX_LINE_CHARS:,}"
            )
    if len(problems) > before:
        return None
    return Step(kind, text=value, after_words=after, then=then, pause_ms=pause)


def _rtvi(where: str, value: object, problems: list[str]) -> Step | None:
    """A message from the app: its type, its JSON data and its id."""
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        problems.append(f'{where}: rtvi needs a table with a `type` (e.g. "ui-event")')
        return None
    rid = value.get("id")
    if rid is not None and not isinstance(rid, str):
        problems.append(f'{where}: an rtvi id is a string (e.g. id = "r1")')
        return None
    try:
        # allow_nan=False: NaN is not JSON, and a brain's parser would refuse it.
        data = json.dumps(value.get("data", {}), allow_nan=False)
    except (TypeError, ValueError):
        problems.append(
            f"{where}: rtvi data must be plain JSON values (no dates, times, nan or inf)"
        )
        return None
    return Step("rtvi", rtvi_type=value["type"], rtvi_data=data, rtvi_id=rid)


def toml_steps(text: str, source: str) -> tuple[dict[str, Any], list[Any]]:
    """A caller script's TOML (or a demo scene's) and its ``[[step]]`` tables; a UserError
    when it is too large or too deep to read, or has no steps."""
    if len(text) > MAX_SCRIPT_CHARS:
        raise UserError(
            f"{source} has {len(text):,} characters; a script has at most {MAX_SCRIPT_CHARS:,}"
        )
    deep = f"{source} nests lists and tables in each other more than {MAX_NESTING} deep"
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{source} is not valid TOML: {exc}") from None
    except RecursionError:  # the reader recurses once a level: thousands of [[[[ ...
        raise UserError(deep) from None
    if nesting(data) > MAX_NESTING:
        raise UserError(deep)
    steps = data.get("step", [])
    if not isinstance(steps, list) or not steps:
        raise UserError(f"{source} has no steps: add [[step]] tables (say, barge_in, ...)")
    return data, steps


def parse_script(text: str, source: str = "script") -> Script:
    """Parse a caller script; its mistakes are one :class:`ScriptProblems`, naming each
    step, key and fix."""
    data, raw_steps = toml_steps(text, source)
    problems: list[str] = []
    if len(raw_steps) > MAX_STEPS:
        problems.append(f"{len(raw_steps):,} steps; a script has at most {MAX_STEPS:,}")
    rate = data.get("ms_per_word")
    if rate is not None and not MS_PER_WORD.holds(rate):
        problems.append(MS_PER_WORD.refusal("ms_per_word", rate))
    line = data.get("line")
    if line is not None and not (
        isinstance(line, str) and (line in PROFILES or line.endswith(".toml"))
    ):
        problems.append(f"line must be one of {', '.join(PROFILES)}, or a profile file (name.toml)")
    language = _language(data.get("language"), problems)
    steps = [read_step(i, raw, problems) for i, raw in enumerate(raw_steps)]
    raw_expect = data.get("expect")
    expect = None if raw_expect is None else parse_end_expect(raw_expect, problems)
    if problems:
        raise ScriptProblems(source, problems)
    return Script(tuple(s for s in steps if s is not None), rate, expect, line, language)


def _language(raw: object, problems: list[str]) -> int | None:
    """The script's ``language``: a catalog code espeak-ng has a caller's voice for."""
    if raw is None:
        return None
    found = LANGUAGE_BY_ISO.get(raw) if isinstance(raw, str) else None
    if found is None or raw not in ESPEAK_LANGUAGES:
        codes = ", ".join(ESPEAK_LANGUAGES)
        got = repr(raw) if isinstance(raw, str) else type(raw).__name__
        problems.append(
            f"language must be one the caller can speak (espeak-ng): {codes} (got {got})"
        )
        return None
    return found


def load_script(path: Path) -> Script:
    """Read and parse a caller script file (read no further than a script can be long)."""
    try:
        with path.open(encoding="utf-8") as file:
            text = file.read(MAX_SCRIPT_CHARS + 1)
    except OSError as exc:
        raise UserError(f"cannot read the script {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UserError(f"{path} is not UTF-8 text: a script is a TOML file") from None
    return parse_script(text, str(path))
