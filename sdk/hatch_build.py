"""The SDK distribution's files: its modules in the repository's ``sandbox/`` package.

The app's wheel (the parent folder's ``pyproject.toml``) excludes exactly these, so the two
distributions share the ``sandbox`` package and never a file; ``tests/test_sdk_distribution.py``
builds both wheels and checks it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

#: The SDK's files, relative to ``sandbox/``: the SDK, the wire, and what they import.
SDK_FILES = (
    "sdk/*.py",
    "sdk/py.typed",
    "wire/*.py",
    "wire/*.pyi",
    "wire/py.typed",
    "errors.py",
    "paths.py",
    "private_files.py",
)


class SdkFiles(BuildHookInterface):  # type: ignore[type-arg]
    """Maps each of :data:`SDK_FILES` into the wheel under ``sandbox/``."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        package = Path(self.root).parent / "sandbox"
        for pattern in SDK_FILES:
            for path in sorted(package.glob(pattern)):
                build_data["force_include"][str(path)] = f"sandbox/{path.relative_to(package)}"
