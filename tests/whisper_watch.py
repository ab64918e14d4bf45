"""Whisper's encoder watched: the width of every window it is given, for the tests that
check which windows a clip, or the engine's warm-up, is encoded in."""

from __future__ import annotations

from typing import Any


class WatchedEncoder:
    """Whisper's CTranslate2 model, with the width of every window it encodes noted."""

    def __init__(self, model: Any) -> None:
        self._model = model
        self.windows: list[int] = []

    def encode(self, features: Any, **options: Any) -> Any:
        self.windows.append(features.shape[-1])
        return self._model.encode(features, **options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)
