"""The three distributions built from this repository, each from its own folder. The app's
(``sandbox/``) and voqalize-sdk (``sdk/sandbox/``: the SDK, the wire and what they import)
share the ``sandbox`` package and never a file, and the app depends on the SDK; the SDK's
modules import nothing of the app's (the test driver's lazy import aside, which says what to
install). The bench's (``bench/``: ``sandbox_bench``, ``sandbox_fuzz``) is development
tooling, none of it in the app's wheel."""

from __future__ import annotations

import ast
import subprocess
import sys
import zipfile

import pytest
from checkout import copy_checkout, tracked_files


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, zipfile.ZipFile]:
    """The three wheels, built as pip builds them from a clone, by name."""
    root = tmp_path_factory.mktemp("wheels")
    source = copy_checkout(root / "clone")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "-w", str(root / "dist"), ".", "./sdk", "./bench"],
        cwd=source, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    found = {path.name.split("-")[0]: zipfile.ZipFile(path) for path in (root / "dist").iterdir()}
    assert set(found) == {"voqalize_sandbox", "voqalize_sdk", "voqalize_sandbox_bench"}
    return found


def _package_files(wheel: zipfile.ZipFile) -> set[str]:
    """The wheel's files but its metadata (``*.dist-info/``)."""
    return {name for name in wheel.namelist() if ".dist-info/" not in name}


def _tracked(folder: str) -> set[str]:
    """The files git tracks under ``folder``, named as a wheel built from it names them."""
    return {name.removeprefix(folder) for name in tracked_files() if name.startswith(folder)}


def _metadata(wheel: zipfile.ZipFile) -> str:
    return wheel.read(next(n for n in wheel.namelist() if n.endswith("/METADATA"))).decode()


def test_each_wheel_ships_its_folder_and_no_two_share_a_file(
    wheels: dict[str, zipfile.ZipFile],
) -> None:
    app, sdk, bench = (
        _package_files(wheels[name])
        for name in ("voqalize_sandbox", "voqalize_sdk", "voqalize_sandbox_bench")
    )
    sandbox = {name for name in _tracked("") if name.startswith("sandbox/")}
    assert app == sandbox
    assert sdk == {f"sandbox/{name}" for name in _tracked("sdk/sandbox/")}
    assert bench == {name for name in _tracked("bench/") if name.startswith("sandbox_")}
    assert not app & sdk
    assert {"sandbox/sdk/server.py", "sandbox/wire/frames_pb2.py", "sandbox/wire/tokens.py"} <= sdk
    assert "sandbox/__init__.py" in app and "sandbox/cli.py" in app
    assert not any(name.startswith("sandbox/__init__") for name in sdk)  # a namespace alone
    assert not any(name.startswith(("sandbox/bench/", "sandbox/fuzz/")) for name in app)
    assert "sandbox_bench/caller_turns.toml" in bench and "sandbox_fuzz/__main__.py" in bench
    metadata = _metadata(wheels["voqalize_sandbox"])
    assert "Requires-Dist: voqalize-sdk @ file://" in metadata
    # The bench comes with the dev and bench extras only.
    requires = [line for line in metadata.splitlines() if "voqalize-sandbox-bench" in line]
    assert requires and all("; extra ==" in line for line in requires), requires


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
