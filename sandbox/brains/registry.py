"""Brains by name, for ``sandbox brain NAME`` — or the author's own (see authored.py)."""

from __future__ import annotations

from collections.abc import Callable

from sandbox.brains import authored
from sandbox.brains.concierge import Concierge
from sandbox.brains.echo import Echo
from sandbox.brains.fixed import FixedReply
from sandbox.brains.guardrail import Guardrail
from sandbox.errors import UserError
from sandbox.sdk import Brain

#: The example brains that ship with the sandbox.
BRAINS: dict[str, type[Brain]] = {
    "echo": Echo,
    "concierge": Concierge,
    "guardrail": Guardrail,
    "fixed": FixedReply,
}


def resolve(spec: str) -> type[Brain]:
    """The Brain class named by ``spec``: a built-in name, ``module:Class`` (the current
    directory first), ``path/to/file.py:Class``, or ``path/to/file.py`` with one Brain in it.

    Raises UserError naming what was wrong and what would work (BrainCodeError when the
    author's own code fails).
    """
    if spec in BRAINS:
        return BRAINS[spec]
    source = authored.parse(spec)
    if source is None:
        names = ", ".join(BRAINS)
        raise UserError(
            f"unknown brain {spec!r}: use one of {names}, module:Class or path/to/file.py"
        )
    return authored.load(source).cls


def make_brain(spec: str) -> Callable[[], Brain]:
    """A factory of fresh brains for ``spec`` — what :func:`sandbox.sdk.serve` takes.

    Checked now, so a wrong name is a UserError before anything listens.
    """
    return resolve(spec)
