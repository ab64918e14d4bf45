"""The device stage's callers: the set in ``caller_turns.toml``, and a run's turns drawn from it.

The set holds texts by class (yes/no questions, wh-questions, requests, statements, short
answers, numbers and spelled items, names) and the voices that say them, each at two rates.
:func:`draw` makes a run's sequence from a seed: the classes come round in turn (each round
in a shuffled order) and each voice-and-rate pairing once per cycle, so any stretch of the
sequence mixes them, and the same seed gives every system the same turns in the same order.
"""

from __future__ import annotations

import random
import re
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from sandbox.errors import UserError

#: The set's file, beside this module (packaged with it).
SET_FILE = "caller_turns.toml"
#: The engines a caller voice can be.
ENGINES = ("espeak", "hibari")
#: A class's name is a JSON key's part: lower case, digits and underscores.
_CLASS_NAME = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True)
class CallerVoice:
    """A voice of the set: its engine ("espeak" or "hibari"), its name there, and its two
    rates (espeak-ng's words a minute; hibari's speed factor)."""

    engine: str
    name: str
    rates: tuple[float, float]


@dataclass(frozen=True)
class CallerTurn:
    """One turn of a run: what is said, its class, and by which voice at which rate."""

    text: str
    kind: str
    voice: CallerVoice
    rate: float

    @property
    def voice_label(self) -> str:
        """The voice and rate, e.g. ``espeak en-us+m3 150``."""
        return f"{self.voice.engine} {self.voice.name} {self.rate:g}"


@dataclass(frozen=True)
class CallerSet:
    """The texts of each class (in the file's order), what each class is, and the voices."""

    texts: dict[str, tuple[str, ...]]
    about: dict[str, str]
    voices: tuple[CallerVoice, ...]


def load_caller_set(text: str | None = None) -> CallerSet:
    """The set in ``text`` (TOML), by default the packaged ``caller_turns.toml``; a set that
    is not one is refused in words."""
    if text is None:
        text = resources.files("sandbox_bench").joinpath(SET_FILE).read_text("utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"the caller set is not TOML: {exc}") from None
    voices = tuple(_voice(v) for v in _list(data, "voices", "the caller set"))
    classes = data.get("classes")
    if not isinstance(classes, dict) or not classes:
        raise UserError("the caller set names no classes ([classes.NAME] with texts)")
    texts: dict[str, tuple[str, ...]] = {}
    about: dict[str, str] = {}
    for name, body in classes.items():
        if not _CLASS_NAME.fullmatch(name) or not isinstance(body, dict):
            raise UserError(f"caller class {name!r}: a name of lower-case letters and _, a table")
        said = _list(body, "texts", f"caller class {name!r}")
        if not all(isinstance(t, str) and t.strip() for t in said):
            raise UserError(f"caller class {name!r}: every text must be a non-empty string")
        texts[name] = tuple(t.strip() for t in said)
        about[name] = str(body.get("about", name))
    seen: set[str] = set()
    for line in (t for group in texts.values() for t in group):
        if line in seen:
            raise UserError(f"the caller set holds {line!r} twice")
        seen.add(line)
    return CallerSet(texts, about, voices)


def _list(table: dict[str, Any], key: str, where: str) -> list[Any]:
    value = table.get(key)
    if not isinstance(value, list) or not value:
        raise UserError(f"{where}: {key} must be a non-empty list")
    return value


def _voice(entry: object) -> CallerVoice:
    if not isinstance(entry, dict):
        raise UserError("a caller voice must be a table (engine, name, rates)")
    engine, name, rates = entry.get("engine"), entry.get("name"), entry.get("rates")
    if engine not in ENGINES:
        raise UserError(f"caller voice {name!r}: engine must be one of {', '.join(ENGINES)}")
    if not isinstance(name, str) or not name:
        raise UserError(f"a {engine} caller voice needs a name")
    if (
        not isinstance(rates, list)
        or len(rates) != 2
        or not all(isinstance(r, int | float) and r > 0 for r in rates)
    ):
        raise UserError(f"caller voice {name!r}: rates must be two positive numbers")
    return CallerVoice(str(engine), name, (float(rates[0]), float(rates[1])))


def _cycle(items: Sequence[Any], rng: random.Random) -> Iterator[Any]:
    """``items`` over and over, each pass in a new shuffled order."""
    while True:
        shuffled = list(items)
        rng.shuffle(shuffled)
        yield from shuffled


def draw(caller_set: CallerSet, count: int, seed: int) -> tuple[CallerTurn, ...]:
    """``count`` turns from the set: a deterministic function of ``seed``."""
    rng = random.Random(seed)
    by_class = {kind: _cycle(texts, rng) for kind, texts in caller_set.texts.items()}
    kinds = _cycle(list(caller_set.texts), rng)
    pairings = _cycle([(v, r) for v in caller_set.voices for r in v.rates], rng)
    turns = []
    for _ in range(count):
        kind = next(kinds)
        voice, rate = next(pairings)
        turns.append(CallerTurn(next(by_class[kind]), kind, voice, rate))
    return tuple(turns)
