"""The two models every stage shares, loaded once through the audio engine's own path."""

from __future__ import annotations

import resource
import sys
from dataclasses import dataclass

from sandbox.audio.audio_options import AudioOptions
from sandbox.audio.engine import AudioEngine
from sandbox.audio.recognizer import Recognizer
from sandbox.audio.resample import resample
from sandbox.audio.stt import SAMPLE_RATE
from sandbox.audio.voice_engine import VoiceEngine
from sandbox.audio.voices import default_voice
from sandbox.caller.espeak_voice import speak
from sandbox_bench.figures import Progress
from sandbox_bench.texts import BOT_REPLIES, STT_UTTERANCES


@dataclass(frozen=True)
class Models:
    """Whisper and the default Piper voice, loaded and warmed up."""

    transcriber: Recognizer
    synthesizer: VoiceEngine

    def engine_options(self) -> AudioOptions:
        """A bench call's audio: no speaker (silent, paced in real time), echo canceller on."""
        return AudioOptions(speaker="none", aec=True)

    def synthesizers(self) -> dict[int, VoiceEngine]:
        """The engine's voice table, already holding the loaded default voice."""
        return {default_voice(): self.synthesizer}


def load_models(progress: Progress) -> Models:
    """Load and warm Whisper and the default voice, as a call does (seconds)."""
    engine = AudioEngine(AudioOptions(speaker="none"))
    engine.load(progress)
    assert engine.transcriber is not None
    return Models(engine.transcriber, engine.synthesizer_for(default_voice()))


def warm_up(models: Models) -> None:
    """Use both models once as a call's first turn does: Whisper on a short caller line,
    Piper on a typical reply (each one's first runs settle the buffers later runs reuse)."""
    raw, rate = speak(STT_UTTERANCES[0])
    models.transcriber.transcribe(resample(raw, rate, SAMPLE_RATE))
    for _clip in models.synthesizer.synthesize(BOT_REPLIES[0]):
        pass


@dataclass(frozen=True)
class MemoryFigures:
    """Resident memory in MB: after loading both models, after :func:`warm_up`, and the
    process's peak once the calls have used them."""

    after_load_mb: float
    after_warm_up_mb: float
    peak_mb: float


def peak_rss_mb() -> float:
    """This process's peak resident memory so far, in MB (10^6 bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    per_unit = 1 if sys.platform == "darwin" else 1024  # macOS reports bytes, Linux KiB
    return round(peak * per_unit / 1e6, 1)
