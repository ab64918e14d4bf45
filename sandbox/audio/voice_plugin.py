"""A voice of your own, named on the command line as ``--voice module:Class``.

The class is imported and built with no arguments, once per process, and must meet
:class:`~sandbox.audio.voice_engine.VoiceEngine`. The wire names voices by the closed
``Voice`` enum (a brain can only ask for a voice frames.proto lists), so the voice speaks as
the catalog voice its ``name`` names (``joe``, ``espeak_female``), in its place for the call.
"""

from __future__ import annotations

import importlib
from functools import cache

from sandbox.audio.voice_engine import VoiceEngine
from sandbox.errors import UserError
from sandbox.wire import pb
from sandbox.wire.catalog import voice_by_name

#: What a class must have to be a voice (the Protocol's members).
_MEMBERS = ("name", "sample_rate", "languages", "synthesize")


def is_plugin(spec: str) -> bool:
    """Whether a --voice value names a class (``module:Class``) rather than a catalog voice."""
    return ":" in spec


@cache
def plugged_voice(spec: str) -> tuple[int, VoiceEngine]:
    """The Voice value and the loaded voice ``module:Class`` names; UserError saying why not."""
    where = f"--voice {spec}"
    module_name, _, class_name = spec.partition(":")
    if not module_name or not class_name:
        raise UserError(f"{where}: name a class as module:Class, e.g. mybrain.voice:MyVoice")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # any import-time failure of someone else's module
        raise UserError(
            f"{where}: cannot import {module_name}: {type(exc).__name__}: {exc}"
        ) from None
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        raise UserError(f"{where}: {module_name} has no class {class_name}")
    missing = [m for m in _MEMBERS if not hasattr(cls, m)]
    if missing:
        raise UserError(
            f"{where}: {class_name} is not a voice (sandbox.audio.voice_engine.VoiceEngine): "
            f"it lacks {', '.join(missing)}"
        )
    try:
        voice = cls()
    except Exception as exc:
        raise UserError(f"{where}: {class_name}() failed: {type(exc).__name__}: {exc}") from None
    if not isinstance(voice, VoiceEngine):
        raise UserError(f"{where}: {class_name} is not a voice (see sandbox.audio.voice_engine)")
    try:
        value = voice_by_name(str(voice.name))
        languages = tuple(voice.languages)
    except ValueError as exc:
        raise UserError(f"{where}: its name is not a catalog voice: {exc}") from None
    if not languages or any(lang not in pb.Language.values() or not lang for lang in languages):
        raise UserError(f"{where}: its languages must be Language values of frames.proto")
    return value, voice
