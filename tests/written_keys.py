"""The keys a bench function writes, read off its source: for the stages and modes no unit
test runs (they need the models, the devices or processes of their own)."""

from __future__ import annotations

import ast

from checkout import package_files

#: A value of each JSON type, for keys only read off the code.
SAMPLES: dict[str, object] = {
    "number": 1.0,
    "integer": 1,
    "object": {},
    "array": [],
    "string": "",
    "boolean": True,
}


def _function(file: str, function: str) -> ast.AST:
    """``function``'s definition in ``file`` (named as :func:`checkout.package_files` names
    it: ``bench/runner.py``)."""
    tree = ast.parse(dict(package_files())[file].read_text())
    return next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        and n.name == function
    )  # fmt: skip


def literal_keys(file: str, function: str, variable: str | None) -> set[str]:
    """The string keys of the dict literal ``function`` returns (or assigns to
    ``variable``), ``**`` spreads left out."""
    for node in ast.walk(_function(file, function)):
        returned = variable is None and isinstance(node, ast.Return)
        assigned = isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == variable for t in node.targets
        )
        value = node.value if returned or assigned else None  # type: ignore[attr-defined]
        if isinstance(value, ast.Dict):
            keys = [k.value for k in value.keys if isinstance(k, ast.Constant)]
            return {k for k in keys if isinstance(k, str)}
    raise AssertionError(f"no dict literal in {file}:{function}")


def assigned_keys(file: str, function: str, variable: str) -> set[str]:
    """The string keys ``function`` sets one by one (``variable["key"] = ...``)."""
    return {
        target.slice.value
        for node in ast.walk(_function(file, function))
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Name)
        and target.value.id == variable
        and isinstance(target.slice, ast.Constant)
        and isinstance(target.slice.value, str)
    }
