"""Demo scenes: a caller script with captions, in TOML.

```toml
title = "A barge-in at a chosen word"
brain = "concierge"              # the built-in brain the scene talks to (unless --brain)
idle_ms = 0                      # optional: the idle nudge's wait (0: off, the default)
ms_per_word = 300                # optional: the simulated speaking rate without audio

[[step]]
caption = "The caller asks about opening hours."
[[step]]
say = "What are your opening hours?"
[[step]]
barge_in = "Sorry, is there parking?"
after_words = 6
[[step]]
caption = "The caller heard {heard_words} of {total_words} words."
when = "cut"                     # shown once the cut lands ("played": once the bot is quiet)
```

A caption's ``{heard_words}``, ``{total_words}``, ``{heard}`` and ``{unheard}`` are filled
from the scene's latest cut unit (or its latest unit when none was cut), ``{caller}`` with the
caller's latest turn as the brain got it. ``only`` shows a caption only when it is true:
``"sound"`` or ``"clock"`` (the scene plays with sound, or without), ``"cut"`` or ``"whole"``
(a unit of the scene was cut so far, or none was).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from sandbox.call.settings import idle_error
from sandbox.caller.script import Step, parse_step, toml_steps
from sandbox.caller.script_limits import MS_PER_WORD, whole
from sandbox.errors import UserError
from sandbox.line.profile import DEFAULT_LINE, PROFILES

#: When a caption is shown: as soon as it is reached, once the bot's unit was cut, or once
#: the bot has finished and is quiet.
WHEN = ("now", "cut", "played")
#: When a caption is true: with sound, on the clock, after a cut, or with nothing cut.
ONLY = ("sound", "clock", "cut", "whole")
#: The shipped scenes, in the order a demo plays them.
SHIPPED = ("barge_in", "backchannel", "take_back", "idle", "resumed")


@dataclass(frozen=True)
class Caption:
    """Words for the room, shown at ``when``."""

    text: str
    when: str = "now"
    only: str | None = None


Item = Step | Caption


@dataclass(frozen=True)
class Scene:
    """A titled caller script with captions, against one built-in brain."""

    name: str
    title: str
    brain: str
    items: tuple[Item, ...]
    idle_ms: int = 0
    ms_per_word: int = 300
    #: The phone line the scene's caller is on, with sound (``wideband``: none).
    line: str = DEFAULT_LINE

    @property
    def steps(self) -> tuple[Step, ...]:
        """The caller's steps alone."""
        return tuple(item for item in self.items if isinstance(item, Step))


def parse_scene(text: str, name: str) -> Scene:
    """A scene from TOML; a mistake is a UserError naming the step."""
    data, raw_steps = toml_steps(text, f"scene {name}")
    items = tuple(_item(index, raw, name) for index, raw in enumerate(raw_steps))
    return Scene(
        name=name,
        title=_text(data, "title", name, default=name),
        brain=_text(data, "brain", name, default="concierge"),
        items=items,
        idle_ms=_idle_ms(data, name),
        ms_per_word=_ms_per_word(data, name),
        line=_line(data, name),
    )


def load_scene(spec: str) -> Scene:
    """A shipped scene by name, or a scene file by path."""
    if spec in SHIPPED:
        folder = resources.files("sandbox.demo").joinpath("scenes")
        return parse_scene(folder.joinpath(f"{spec}.toml").read_text("utf-8"), spec)
    path = Path(spec)
    if path.suffix != ".toml":
        raise UserError(f"no scene {spec!r}: name one of {', '.join(SHIPPED)}, or a .toml file")
    try:
        return parse_scene(path.read_text("utf-8"), path.stem)
    except OSError as exc:
        raise UserError(f"cannot read the scene {path}: {exc.strerror}") from None


def _item(index: int, raw: Any, name: str) -> Item:
    if isinstance(raw, dict) and "caption" in raw:
        unknown = set(raw) - {"caption", "when", "only"}
        text, when, only = raw["caption"], raw.get("when", "now"), raw.get("only")
        if unknown or not isinstance(text, str) or when not in WHEN or only not in (None, *ONLY):
            raise UserError(
                f'scene {name}, step {index + 1}: a caption is `caption = "..."` with an '
                f"optional `when` of {', '.join(WHEN)} and `only` of {', '.join(ONLY)}"
            )
        return Caption(text, when, only)
    try:
        return parse_step(index, raw)
    except UserError as exc:
        raise UserError(f"scene {name}, {exc}") from None


def _text(data: dict[str, Any], key: str, name: str, *, default: str) -> str:
    value = data.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise UserError(f"scene {name}: {key} must be a non-empty string")
    return value


def _idle_ms(data: dict[str, Any], name: str) -> int:
    value = data.get("idle_ms", 0)
    problem = (
        idle_error(value)
        if whole(value) and value >= 0
        else "must be a whole number of ms (0: off)"
    )
    if problem:
        raise UserError(f"scene {name}: idle_ms: {problem.removeprefix('idle.timeout_ms ')}")
    return int(value)


def _line(data: dict[str, Any], name: str) -> str:
    value = data.get("line", DEFAULT_LINE)
    if value not in PROFILES:
        raise UserError(f"scene {name}: line must be one of {', '.join(PROFILES)}")
    return str(value)


def _ms_per_word(data: dict[str, Any], name: str) -> int:
    value = data.get("ms_per_word", 300)
    if not MS_PER_WORD.holds(value):
        raise UserError(f"scene {name}: {MS_PER_WORD.refusal('ms_per_word', value)}")
    return int(value)
