"""``sandbox voices``: every voice of the catalog, its languages, and whether it is installed."""

from __future__ import annotations

import argparse

from sandbox.audio.voices import ESPEAK_MISSING, VoiceEntry, catalog, user_voices_dir
from sandbox.record.plain_text import json_text, visible
from sandbox.wire import pb
from sandbox.wire.catalog import language_name

HELP = "list the voices, the languages each speaks, and which are installed here"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--json."""
    parser.add_argument("--json", action="store_true", help="one JSON object per voice")


def run(args: argparse.Namespace) -> int:
    """One line per voice, in the order of the Voice enum: a brain can ask for an installed
    one; a voice not installed says how to install it."""
    entries = sorted(catalog().values(), key=lambda e: e.voice)
    for entry in entries:
        if args.json:
            print(json_text(_record(entry)))
            continue
        languages = ", ".join(language_name(lang) for lang in entry.languages)
        state = "installed" if entry.installed else f"not installed: {_how(entry)}"
        print(f"{entry.name:<14} {entry.kind:<7} {state}\n{'':<23}speaks {languages}")
    return 0


def _record(entry: VoiceEntry) -> dict[str, object]:
    return {
        "voice": pb.Voice.Name(entry.voice),
        "name": entry.name,
        "engine": entry.kind,
        "languages": [language_name(lang) for lang in entry.languages],
        "installed": entry.installed,
        "model": None if entry.model_path is None else str(entry.model_path),
    }


def _how(entry: VoiceEntry) -> str:
    """How to install a voice that is not."""
    if entry.kind == "espeak":
        return ESPEAK_MISSING
    folder = visible(str(user_voices_dir()))
    return f"put its Piper model (.onnx and .onnx.json) into {folder}; see voices/README.md"
