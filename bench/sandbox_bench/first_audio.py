"""First clause -> first audio: from the text reaching playout to its first sound going out.

The real SpeechOut (Piper into the playout clock, no speaker, paced in real time), warm. Each
unit gets one chunk: a reply's first clause (as the clause rule cuts it) and the next word,
the way a streaming brain's text arrives; measured from that SpeakText to the first block
with sound the playout released. The unit is then cut, so the next one starts on an idle
synthesizer, as a new reply does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from sandbox.audio.clauses import take_ready
from sandbox.audio.engine import AudioEngine
from sandbox.audio.voices import default_voice
from sandbox.wire import pb
from sandbox_bench.figures import Progress, fmt_ms, median
from sandbox_bench.models import Models
from sandbox_bench.texts import BOT_REPLIES

#: Longest the first audio of a unit may take before the run counts as lost.
FIRST_AUDIO_WAIT_S = 10.0


@dataclass(frozen=True)
class FirstAudioFigures:
    """Per unit: (first clause, ms from its text to its first sound)."""

    runs: tuple[tuple[str, float], ...]

    @property
    def first_chunk_to_first_audio_ms(self) -> float | None:
        """Median over the units."""
        return median([ms for _clause, ms in self.runs])


def first_chunk(reply: str) -> str:
    """The reply's first clause and the word after it: what a brain has streamed by then."""
    pieces, _rest = take_ready(reply, first=True)
    clause = pieces[0] if pieces else reply
    after = reply[len(clause) :].split()
    return clause + (after[0] if after else "")


def measure_first_audio(models: Models, runs: int, progress: Progress) -> FirstAudioFigures:
    """``runs`` units, each timed by SpeechOut from its first text to its first sound."""
    engine = AudioEngine(
        models.engine_options(), transcriber=models.transcriber, synthesizers=models.synthesizers()
    )
    speech = engine.playout()
    speech.start()
    measured: list[tuple[str, float]] = []
    try:
        for speech_id in range(1, runs + 1):
            chunk = first_chunk(BOT_REPLIES[(speech_id - 1) % len(BOT_REPLIES)])
            speech.open_unit(speech_id, default_voice(), pb.LANGUAGE_EN, 0)
            speech.speak(speech_id, chunk, 0)
            deadline = time.monotonic() + FIRST_AUDIO_WAIT_S
            while speech_id not in speech.timing.first_audio and time.monotonic() < deadline:
                time.sleep(0.002)
            speech.cut()
            speech.advance(0)  # nobody else drains what it played
            audio = speech.timing.first_audio.get(speech_id)
            if audio is None:
                progress(f"  unit {speech_id}/{runs}: no audio")
                continue
            ms = round((audio - speech.timing.first_text[speech_id]) * 1000, 1)
            measured.append((chunk, ms))
            progress(f"  unit {speech_id}/{runs}: {fmt_ms(ms)} for {chunk!r}")
            time.sleep(0.1)  # a silent block between units
    finally:
        speech.stop()
    return FirstAudioFigures(tuple(measured))
