"""The two distributions built from this repository share the ``sandbox`` package and never a
file: voqalize-sdk (``sdk/``) ships the SDK, the wire and what they import, the app's wheel
everything else git tracks under ``sandbox/`` and depends on the SDK; the SDK's modules import
nothing of the app's (the test driver's lazy import aside, which says what to install)."""

from __future__ import annotations

import ast
import subprocess
import sys
import zipfile

import pytest
from checkout import copy_checkout, tracked_files


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, zipfile.ZipFile]:
    """Both wheels, built as pip builds them from a clone, by name."""
    root = tmp_path_factory.mktemp("wheels")
    source = copy_checkout(root / "clone")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "-w", str(root / "dist"), ".", "./sdk"],
        cwd=source, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    found = {path.name.split("-")[0]: zipfile.ZipFile(path) for path in (root / "dist").iterdir()}
    assert set(found) == {"voqalize_sandbox", "voqalize_sdk"}
    return found


def _package_files(wheel: zipfile.ZipFile) -> set[str]:
    return {name for name in wheel.namelist() if name.startswith("sandbox/")}


def test_the_wheels_share_no_file_and_ship_every_tracked_one(
    wheels: dict[str, zipfile.ZipFile],
) -> None:
    app, sdk = (_package_files(wheels[name]) for name in ("voqalize_sandbox", "voqalize_sdk"))
    assert not app & sdk
    assert app | sdk == {name for name in tracked_files() if name.startswith("sandbox/")}
    assert {"sandbox/sdk/server.py", "sandbox/wire/frames_pb2.py", "sandbox/wire/tokens.py"} <= sdk
    assert "sandbox/__init__.py" in app and "sandbox/cli.py" in app
    metadata = (
        wheels["voqalize_sandbox"]
        .read(next(n for n in wheels["voqalize_sandbox"].namelist() if n.endswith("/METADATA")))
        .decode()
    )
    assert "Requires-Dist: voqalize-sdk @ file://" in metadata


def test_the_sdk_imports_nothing_of_the_apps(wheels: dict[str, zipfile.ZipFile]) -> None:
    sdk = wheels["voqalize_sdk"]
    modules = {
        name.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        for name in _package_files(sdk)
        if name.endswith(".py")
    }
    reaching = set()
    for name in _package_files(sdk):
        if not name.endswith(".py"):
            continue
        for node in ast.walk(ast.parse(sdk.read(name))):
            targets = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            for target in targets:
                if target.startswith("sandbox.") and target not in modules:
                    reaching.add((name, target))
    assert reaching == set()
