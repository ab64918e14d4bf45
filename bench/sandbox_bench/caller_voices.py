"""The device stage's caller turns as audio at the probe's rate, in the set's voices.

Two engines, both installed with the sandbox and neither downloading anything: espeak-ng
(formant synthesis, the voices the rest of the bench uses) and hibari (a small neural voice
distilled from Kokoro, its "heart" voice inside the ``hibari-tts`` wheel): a caller whose
intonation is a person's, not a rule's. Each distinct line is rendered once a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sandbox.errors import UserError
from sandbox_bench.caller_set import CallerTurn
from sandbox_bench.probe import at_probe_rate, spoken_line

#: hibari's silence around a line is trimmed where espeak-ng's is (sandbox.caller.espeak_voice
#: trims at 300 of 32768): its noise floor sits just under the probe's level.
TRIM = 300 / 32768
#: hibari's noise component, fixed so a line is the same audio every run.
HIBARI_SEED = 0


@dataclass(frozen=True)
class SpokenTurn:
    """A turn as audio: 16 kHz samples and one past the last voiced one."""

    turn: CallerTurn
    samples: NDArray[np.int16]
    voice_end: int


def _hibari(name: str) -> Any:  # hibari is untyped
    try:
        from hibari import Hibari
        from hibari.voices import VOICES, voice_path
    except ImportError:
        raise UserError(
            "the caller voices need hibari-tts (pip install hibari-tts, a dependency of the "
            "sandbox): reinstall the sandbox"
        ) from None
    if not VOICES.get(name, {}).get("bundled"):  # the others are downloaded on first use
        raise UserError(f"hibari's voice {name!r} is not inside its package")
    return Hibari(voice=name, model=voice_path(name, download_missing=False))


def _hibari_line(engine: Any, turn: CallerTurn) -> tuple[NDArray[np.int16], int, int]:
    audio = np.asarray(engine(turn.text, speed=turn.rate, seed=HIBARI_SEED), np.float32)
    loud = np.flatnonzero(np.abs(audio) > TRIM)
    if not len(loud):
        raise UserError(f"hibari said nothing for {turn.text!r}")
    return at_probe_rate(audio[loud[0] : loud[-1] + 1], int(engine.sample_rate))


def render(turns: Sequence[CallerTurn]) -> tuple[SpokenTurn, ...]:
    """Each of ``turns`` spoken in its voice at its rate."""
    engines: dict[str, Any] = {}
    lines: dict[tuple[str, str, float, str], tuple[NDArray[np.int16], int, int]] = {}
    out = []
    for turn in turns:
        voice = turn.voice
        key = (voice.engine, voice.name, turn.rate, turn.text)
        if key not in lines:
            if voice.engine == "hibari":
                if voice.name not in engines:
                    engines[voice.name] = _hibari(voice.name)
                lines[key] = _hibari_line(engines[voice.name], turn)
            else:
                lines[key] = spoken_line(turn.text, voice.name, round(turn.rate))
        samples, _start, end = lines[key]
        out.append(SpokenTurn(turn, samples, end))
    return tuple(out)
