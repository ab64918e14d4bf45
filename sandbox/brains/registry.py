"""Brains by name, for ``sandbox brain NAME`` — or any ``module:Class``."""

from __future__ import annotations

import importlib
from collections.abc import Callable

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
    """The Brain class named by ``spec``: a built-in name or ``package.module:ClassName``.

    Raises UserError naming what was wrong and what would work.
    """
    if spec in BRAINS:
        return BRAINS[spec]
    module_name, colon, class_name = spec.partition(":")
    if not colon or not module_name or not class_name:
        names = ", ".join(BRAINS)
        raise UserError(f"unknown brain {spec!r}: use one of {names}, or module:Class")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UserError(f"cannot import module {module_name!r} for brain {spec!r}: {exc}") from None
    found = getattr(module, class_name, None)
    if found is None:
        raise UserError(f"module {module_name!r} has no {class_name!r}")
    if not (isinstance(found, type) and issubclass(found, Brain)):
        raise UserError(f"{spec} is not a Brain subclass (from sandbox.sdk import Brain)")
    return found


def make_brain(spec: str) -> Callable[[], Brain]:
    """A factory of fresh brains for ``spec`` — what :func:`sandbox.sdk.serve` takes.

    Checked now, so a wrong name is a UserError before anything listens.
    """
    return resolve(spec)
