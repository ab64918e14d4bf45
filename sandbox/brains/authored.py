"""A brain its author wrote, found the way the README says: ``mymodule:Greeter`` (a module
in the current directory, or anywhere on the path), ``path/to/file.py:Greeter``, or
``path/to/file.py`` alone when the file defines exactly one Brain subclass."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from sandbox.brains.their_code import in_their_code
from sandbox.errors import UserError
from sandbox.sdk import Brain


@dataclass(frozen=True)
class BrainSource:
    """Where an author's brain lives: a module named ``module``, read from ``path`` when the
    spec named a file, and the class in it (None: the only Brain subclass it defines)."""

    spec: str
    module: str
    path: Path | None
    class_name: str | None


@dataclass(frozen=True)
class Authored:
    """The author's Brain class, and the file it was read from (what ``--reload`` watches)."""

    cls: type[Brain]
    file: Path


def parse(spec: str) -> BrainSource | None:
    """The source ``spec`` names, or None when it names neither a file nor ``module:Class``."""
    if spec.endswith(".py"):
        return BrainSource(spec, Path(spec).stem, Path(spec), None)
    where, colon, class_name = spec.rpartition(":")
    if not colon or not where or not class_name:
        return None
    if where.endswith(".py"):
        return BrainSource(spec, Path(where).stem, Path(where), class_name)
    return BrainSource(spec, where, None, class_name)


def load(source: BrainSource) -> Authored:
    """Import the author's module (anew each time) and find their Brain class in it.

    Raises UserError when it cannot be found, and BrainCodeError when their code fails.
    """
    module = _from_file(source) if source.path is not None else _from_name(source)
    return Authored(_brain_class(module, source), Path(str(module.__file__)).resolve())


def reload(source: BrainSource, file: Path) -> Authored:
    """The author's module read again from ``file`` (it changed), replacing the old one."""
    return load(BrainSource(source.spec, source.module, file, source.class_name))


def _from_name(source: BrainSource) -> ModuleType:
    # As ``python -m`` would: the current directory first, so ``mymodule`` next to you is found
    # (the ``sandbox`` script, unlike ``python``, does not put it on the path).
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)
    try:
        return importlib.import_module(source.module)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if source.module == missing or source.module.startswith(f"{missing}."):
            raise UserError(
                f"cannot find the module {source.module!r} for brain {source.spec!r} in "
                f"{here} or on the Python path (give a file instead: path/to/file.py:Class)"
            ) from None
        raise in_their_code(exc, f"while importing {source.module}") from None
    except Exception as exc:  # SyntaxError and anything their module raises as it runs
        raise in_their_code(exc, f"while importing {source.module}") from None


def _from_file(source: BrainSource) -> ModuleType:
    assert source.path is not None
    path = source.path.resolve()
    if not path.is_file():
        raise UserError(f"no brain file {source.path} (for brain {source.spec!r})")
    folder = str(path.parent)
    if folder not in sys.path:  # so it can import the files beside it
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(source.module, path)
    if spec is None or spec.loader is None:
        raise UserError(f"{source.path} cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs, as an import would: dataclasses and the like look it up.
    previous = sys.modules.get(source.module)
    sys.modules[source.module] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # SyntaxError and anything their module raises as it runs
        _put_back(source.module, previous)
        raise in_their_code(exc, f"while loading {source.path}") from None
    return module


def _put_back(name: str, previous: ModuleType | None) -> None:
    if previous is None:
        sys.modules.pop(name, None)
    else:
        sys.modules[name] = previous


def _brain_class(module: ModuleType, source: BrainSource) -> type[Brain]:
    where = source.path or source.module
    if source.class_name is None:
        mine = [
            found
            for found in vars(module).values()
            if isinstance(found, type)
            and issubclass(found, Brain)
            and found.__module__ == module.__name__
        ]
        if len(mine) != 1:
            names = ", ".join(sorted(c.__name__ for c in mine)) or "none"
            raise UserError(
                f"{where} must define exactly one Brain subclass when no class is named "
                f"(found: {names}); name one as {where}:Class"
            )
        return mine[0]
    found = getattr(module, source.class_name, None)
    if found is None:
        raise UserError(f"{where} has no {source.class_name!r}")
    if not (isinstance(found, type) and issubclass(found, Brain)):
        raise UserError(f"{source.spec} is not a Brain subclass (from sandbox.sdk import Brain)")
    return found
