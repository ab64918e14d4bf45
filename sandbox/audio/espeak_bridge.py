"""Piper's espeak-ng bridge (``piper.espeakbridge``), without the memory it loses per call.

Piper phonemizes through a small C module, and with piper-tts 1.8 every phonemization
loses memory for good (measured in a loop with glibc's ``mallinfo2`` and ``tracemalloc``):

* ``set_voice``, which Piper calls before every phonemization even when the voice has not
  changed, costs ~1.4 KB of espeak-ng's heap a call;
* ``get_phonemes`` appends each clause's tuple to the list it returns without giving up its
  own reference (``PyList_Append(list, Py_BuildValue(...))``), so every clause's tuple and
  phoneme string live on, ~190 bytes a clause.

The synthesizer phonemizes each word of a reply on its own (to place the words on the
audio), so a real-audio call phonemizes a few times a second while the bot speaks: a
ten-minute call lost ~3 MB this way, the rise of its memory floor. :func:`install` wraps
the bridge's functions where Piper looks them up (it imports the module at each call): the
voice is set only when it changes, and again after ``initialize``; a clause holding one
reference more than its list accounts for gives it back. The count is read, not assumed, so
a bridge that no longer leaks is left as it is. pyproject.toml pins piper-tts to 1.8.x, the
release this was measured on: measure again (tests/test_espeak_bridge.py) before widening it.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

Clause = tuple[str, str, bool]

_py_decref = ctypes.pythonapi.Py_DecRef
_py_decref.argtypes = [ctypes.py_object]
_py_decref.restype = None


def _refcounts(items: list[Any]) -> list[int]:
    """Each item's reference count, read the same way for the clauses and the baseline."""
    return [sys.getrefcount(item) for item in items]


#: The count of a tuple that only its list holds, as :func:`_refcounts` reads it.
_HELD_BY_LIST = _refcounts([tuple([object()])])[0]


class LeanBridge:
    """The bridge's three functions, with its losses stopped (see the module doc)."""

    def __init__(
        self,
        initialize: Callable[[str], None],
        set_voice: Callable[[str], None],
        get_phonemes: Callable[[str], list[Clause]],
    ) -> None:
        """Wrap the bridge's own functions."""
        self._initialize = initialize
        self._set_voice = set_voice
        self._get_phonemes = get_phonemes
        self._voice: str | None = None  # what espeak-ng was last set to

    def initialize(self, data_dir: str) -> None:
        """Start espeak-ng again: it has no voice set after this."""
        self._voice = None
        self._initialize(data_dir)

    def set_voice(self, voice: str) -> None:
        """Set espeak-ng's voice, unless it is the one set already."""
        if voice == self._voice:
            return
        self._voice = None  # unknown if this fails
        self._set_voice(voice)
        self._voice = voice

    def get_phonemes(self, text: str) -> list[Clause]:
        """The bridge's clauses, each held by the returned list alone."""
        clauses = self._get_phonemes(text)
        for clause, count in zip(clauses, _refcounts(clauses), strict=True):
            if count > _HELD_BY_LIST:
                _py_decref(clause)
        return clauses


def install(bridge: ModuleType) -> LeanBridge:
    """Put a :class:`LeanBridge` in place of ``bridge``'s functions (once per process)."""
    installed = getattr(bridge, "lean", None)
    if isinstance(installed, LeanBridge):
        return installed
    lean = LeanBridge(bridge.initialize, bridge.set_voice, bridge.get_phonemes)
    for name in ("initialize", "set_voice", "get_phonemes"):
        setattr(bridge, name, getattr(lean, name))
    setattr(bridge, "lean", lean)  # noqa: B010 - a module's attribute, set at run time
    return lean
