"""What a bench key is: its name, unit, description, target and table row, and the stage
that writes it; and what a mode run on its own is: the stages its result holds. The full
run's keys are declared in :mod:`sandbox_bench.run_keys` and
:mod:`sandbox_bench.device_keys`; the modes' (``--sessions``, ``--redrive``, ``--soak``,
``--hostile``) in :mod:`sandbox_bench.mode_keys`, :mod:`sandbox_bench.soak_keys` and
:mod:`sandbox_bench.hostile_keys`. Each result's targets and its JSON Schema
(:mod:`sandbox_bench.result_schema`) are read from them."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Literal

#: How a figure is read: milliseconds, a fraction 0..1, a count, a ratio (times), megabytes,
#: seconds, kibibytes, minutes, a percentage, microseconds, megabytes a minute and ten
#: minutes (of call). ``None``: a structure or a word, not a figure.
Unit = Literal["ms", "frac", "count", "x", "MB", "s", "KiB", "min", "%", "µs", "MB/min", "MB/10min"]
#: The JSON type of a key's value (each may also be null: nothing was measured).
JsonType = Literal["number", "integer", "object", "array", "string", "boolean"]
#: When a stage's targets are reported: always (missing figures met None), when the stage
#: wrote the key, or when it measured a value for it.
Reported = Literal["always", "present", "measured"]
#: A placeholder in a key's name (``peer_class_ratio_{class}``) and what it stands for.
_PLACEHOLDER = re.compile(r"\{[a-z]+\}")


@dataclass(frozen=True)
class Target:
    """A bound a figure is held to: at most (``max``) or at least (``min``) ``bound``; a
    bound of None is the run's own, computed where the figure is measured (``how`` says
    how). ``when``: another key, the target reported only when that key has a value."""

    kind: Literal["max", "min"]
    bound: float | None
    how: str = ""
    when: str | None = None

    def words(self) -> str:
        """The target in words, for the schema's description."""
        sign = "≤" if self.kind == "max" else "≥"
        return f"target {sign} {self.how if self.bound is None else f'{self.bound:g}'}"


@dataclass(frozen=True)
class BenchKey:
    """One key of a bench result. ``label``: its row in the table, if it has one (rows are
    shown in the order their keys are declared). A ``{placeholder}`` in the name makes it a
    family of keys (one per patience, per class)."""

    name: str
    json_type: JsonType
    unit: Unit | None
    description: str
    target: Target | None = None
    label: str | None = None

    @property
    def pattern(self) -> str | None:
        """The regular expression of the names a family of keys takes; None for one key."""
        parts = _PLACEHOLDER.split(self.name)
        if len(parts) == 1:
            return None
        return "^" + "[A-Za-z0-9_]+".join(re.escape(p) for p in parts) + "$"

    def matches(self, name: str) -> bool:
        """Whether ``name`` is this key, or one of its family."""
        pattern = self.pattern
        return name == self.name if pattern is None else re.match(pattern, name) is not None


@dataclass(frozen=True)
class Stage:
    """The keys one stage writes into a result, in the order they are written."""

    name: str
    description: str
    keys: tuple[BenchKey, ...]
    reported: Reported = "always"

    def bounds(self) -> dict[str, tuple[str, float]]:
        """Each fixed target of the stage's keys: its kind and bound."""
        return {
            k.name: (k.target.kind, k.target.bound)
            for k in self.keys
            if k.target is not None and k.target.bound is not None and k.pattern is None
        }

    def reported_bounds(self, figures: Mapping[str, object]) -> dict[str, tuple[str, float]]:
        """The fixed targets to report for ``figures``, as :attr:`reported` says (a family
        of keys: each of its names in ``figures``)."""
        out: dict[str, tuple[str, float]] = {}
        for key in self.keys:
            target = key.target
            if target is None or target.bound is None:
                continue
            if target.when is not None and figures.get(target.when) is None:
                continue
            names = [key.name] if key.pattern is None else [n for n in figures if key.matches(n)]
            out |= {n: (target.kind, target.bound) for n in names if self._reports(n, figures)}
        return out

    def _reports(self, name: str, figures: Mapping[str, object]) -> bool:
        if self.reported == "always":
            return True
        if self.reported == "present":
            return name in figures
        return figures.get(name) is not None


def all_keys(stages: tuple[Stage, ...]) -> Iterator[BenchKey]:
    """Every key of ``stages``, stage by stage."""
    for stage in stages:
        yield from stage.keys


def declared(stages: tuple[Stage, ...], name: str) -> BenchKey:
    """The key of ``stages`` that ``name`` is (itself or one of a family's)."""
    found = next((k for k in all_keys(stages) if k.matches(name)), None)
    if found is None:
        raise KeyError(f"{name!r} is not a declared bench key")
    return found


def computed_bound(stages: tuple[Stage, ...], name: str, bound: float) -> tuple[str, float]:
    """A target whose bound the run computes: the kind declared for ``name``, and ``bound``."""
    target = declared(stages, name).target
    if target is None:
        raise KeyError(f"{name!r} declares no target")
    return target.kind, bound


@dataclass(frozen=True)
class Mode:
    """A bench mode run on its own, ``sandbox bench --FLAG --json``: ``usage``, its flags;
    ``own``, the stages it measures, whose fixed targets it reports; ``shared``, stages it
    writes that other results hold too (their targets are reported by the full run)."""

    flag: str
    usage: str
    own: tuple[Stage, ...]
    shared: tuple[Stage, ...]

    @property
    def stages(self) -> tuple[Stage, ...]:
        """Every stage of the mode's result, its own first."""
        return self.own + self.shared

    def bounds(self) -> dict[str, tuple[str, float]]:
        """Each fixed target of the mode's own stages, in their order."""
        out: dict[str, tuple[str, float]] = {}
        for stage in self.own:
            out |= stage.bounds()
        return out
