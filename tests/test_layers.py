"""The layers point one way: every import in the package is checked against the rules.

``call/`` and ``sdk/`` sit on ``wire/`` alone (a brain author's import loads no runtime);
``audio/`` never reaches up into ``host/``; ``host/`` never imports a brain; the harness sits
above both the SDK and the host; the faces (commands, ui, bench, check) may use anything.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "sandbox"

#: Project packages each layer may import (itself always); a layer not listed is a face.
ALLOWED: dict[str, frozenset[str]] = {
    "errors": frozenset(),
    "private_files": frozenset(),
    "malloc_arenas": frozenset(),
    "paths": frozenset(),
    "judges": frozenset(),
    "wire": frozenset({"errors", "paths", "private_files"}),
    "call": frozenset({"wire"}),
    "sdk": frozenset({"wire"}),
    "record": frozenset({"call", "judges", "wire", "errors", "paths", "private_files"}),
    "audio": frozenset({"call", "wire", "errors", "malloc_arenas", "paths", "private_files"}),
    "host": frozenset({"audio", "call", "record", "wire", "errors"}),
    "caller": frozenset({"audio", "call", "host", "errors"}),
    "brains": frozenset({"sdk", "wire", "errors"}),
    "harness": frozenset({"brains", "caller", "sdk", "host", "call", "record", "wire", "errors"}),
    "replay": frozenset(
        {"audio", "caller", "check", "harness", "host", "record", "call", "wire", "errors"}
    ),
    "demo": frozenset({"caller", "harness", "host", "call", "record", "wire", "errors"}),
}
#: The one arrow allowed against the rules, and why: ``sandbox.sdk.VoqalizeDriver`` keeps
#: working for brain authors through a lazy module ``__getattr__`` that imports on first use.
EXCEPTIONS = {("sdk/__init__.py", "harness")}
#: The call core does no I/O and has no clock: none of these may appear in it.
NO_IO = frozenset(
    {"asyncio", "os", "pathlib", "socket", "subprocess", "threading", "time", "websockets"}
)


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module an import statement in ``path`` names, at any depth (TYPE_CHECKING too)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            # ``from sandbox import harness`` names a package through the alias;
            # ``from sandbox import __version__`` names the root, which every layer may use.
            if node.module == "sandbox":
                found += [
                    (node.lineno, f"sandbox.{alias.name}")
                    for alias in node.names
                    if (PACKAGE / alias.name).is_dir() or (PACKAGE / f"{alias.name}.py").is_file()
                ]
    return found


def _layer(module: str) -> str:
    return module.split(".")[1] if module.count(".") else "__init__"


def _violations() -> list[str]:
    problems: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        layer = rel.split("/")[0].removesuffix(".py")
        allowed = ALLOWED.get(layer)
        for line, module in _imports(path):
            top = module.split(".")[0]
            if layer == "call" and top in NO_IO:
                problems.append(f"sandbox/{rel}:{line} imports {module}: the core does no I/O")
            if allowed is None or not module.startswith("sandbox."):
                continue
            target = _layer(module)
            if target == layer or target in allowed or (rel, target) in EXCEPTIONS:
                continue
            problems.append(f"sandbox/{rel}:{line}: {layer} imports {module}")
    return problems


def test_every_import_points_down_the_layers() -> None:
    assert _violations() == []


def test_the_checker_sees_a_forbidden_arrow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk itself works: an audio module importing the host is caught, even when the
    import hides under TYPE_CHECKING, and so is a clock in the core."""
    fake = tmp_path / "sandbox"
    (fake / "audio").mkdir(parents=True)
    (fake / "call").mkdir()
    (fake / "audio" / "engine.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from sandbox.host.session import CallHost\n"
    )
    (fake / "call" / "core.py").write_text("import time\nfrom sandbox.wire import pb\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    assert _violations() == [
        "sandbox/audio/engine.py:3: audio imports sandbox.host.session",
        "sandbox/call/core.py:1 imports time: the core does no I/O",
    ]


@pytest.mark.parametrize(
    ("module", "absent"),
    [
        ("sandbox.sdk", ("call", "host", "audio", "record", "ui", "harness", "brains")),
        ("sandbox.call.core", ("host", "audio", "record", "ui", "harness", "sdk")),
        ("sandbox.host.session", ("sdk", "brains", "harness", "ui")),
    ],
)
def test_importing_a_layer_loads_nothing_above_it(module: str, absent: tuple[str, ...]) -> None:
    code = (
        f"import sys, {module}\n"
        "print(' '.join(sorted({m.split('.')[1] for m in sys.modules "
        "if m.startswith('sandbox.')})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert not set(out) & set(absent), f"importing {module} loaded {sorted(set(out) & set(absent))}"


def test_the_driver_is_still_reachable_from_the_sdk() -> None:
    import sandbox.harness
    import sandbox.sdk

    assert sandbox.sdk.VoqalizeDriver is sandbox.harness.VoqalizeDriver
    with pytest.raises(AttributeError):
        _ = sandbox.sdk.NoSuchThing
