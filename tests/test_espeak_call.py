"""Real-audio calls spoken in German and in Hindi by an espeak-ng voice: PortAudio on
PulseAudio's virtual devices, webrtcvad, Whisper, libespeak-ng, the playout clock and the
echo canceller, against a brain over a real socket. The caller barges in, and Finalize's
heard text is exactly the words whose audio reached the speaker leg."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from audio_rig import audio_call, sent, until
from caller_audio import espeak, write_wav

from sandbox.audio.engine import EngineHooks
from sandbox.audio.espeak_tts import EspeakVoice, library
from sandbox.audio.playout import heard_at
from sandbox.audio.sinks import Block
from sandbox.audio.stt import Transcriber
from sandbox.audio.tts import Clip, Synthesizer, TroubleSink
from sandbox.audio.voices import ESPEAK_VARIANTS, catalog
from sandbox.call.settings import Settings
from sandbox.call.units import Fate
from sandbox.harness.builtin import serving
from sandbox.sdk import Brain, Session
from sandbox.wire import pb

pytestmark = pytest.mark.audio

#: Greetings long enough that the caller's objection lands well inside them.
GREETINGS: dict[int, str] = {
    pb.LANGUAGE_DE: (
        "Guten Tag und herzlich willkommen im Studio am Hafen. Wir haben montags bis freitags "
        "von sieben bis zwanzig Uhr geöffnet, samstags von neun bis vierzehn Uhr, und sonntags "
        "bleibt das Studio geschlossen, außer an den Tagen vor den Feiertagen."
    ),
    pb.LANGUAGE_HI: (
        "नमस्ते और हमारे स्टूडियो में आपका स्वागत है। हम सोमवार से शुक्रवार सुबह सात बजे से "
        "रात आठ बजे तक खुले रहते हैं, और शनिवार को सुबह नौ बजे से दोपहर दो बजे तक।"
    ),
}


class Kept(EspeakVoice):
    """The real espeak voice, keeping every clip it makes: espeak's audio varies by a few
    samples from one synthesis to the next, so the speaker leg is checked against these."""

    def __init__(self) -> None:
        entry = catalog()[pb.VOICE_ESPEAK_FEMALE]
        super().__init__(entry, ESPEAK_VARIANTS[entry.voice], library())
        self.clips: list[Clip] = []

    def synthesize(
        self, text: str, trouble: TroubleSink | None = None, *, language: int | None = None
    ) -> Iterator[Clip]:
        for clip in super().synthesize(text, trouble, language=language):
            self.clips.append(clip)
            yield clip


class Greeter(Brain):
    """Greets in the call's language, and has nothing more to say."""

    def __init__(self, greeting: str) -> None:
        self.greeting = greeting

    async def greet(self, session: Session) -> str:
        return self.greeting


def released_prefix(leg: np.ndarray, clip: np.ndarray, after: int) -> tuple[int, int]:
    """Where ``clip`` starts in the speaker leg (at or after ``after``), and how many of its
    samples the leg holds there, in order; (after, 0) when none of its sound was released."""
    first = int(np.flatnonzero(clip)[0])  # its first sound: the leading silence matches anywhere
    probe = clip[first : first + 64]
    for at in np.flatnonzero(leg[after:] == clip[first]):
        offset = after + int(at) - first
        if offset >= after and np.array_equal(leg[offset + first : offset + first + 64], probe):
            run = leg[offset : offset + len(clip)]
            differ = np.flatnonzero(run != clip[: len(run)])
            return offset, int(differ[0]) if len(differ) else len(run)
    return after, 0


@pytest.mark.slow  # its kind in CI: test_audio_call's barge-in through the virtual devices
@pytest.mark.parametrize("language", list(GREETINGS), ids=["de", "hi"])
async def test_an_espeak_reply_cut_by_the_caller_reports_exactly_what_was_played(
    pulse: ModuleType,
    transcriber: Transcriber,
    synthesizer: Synthesizer,
    tmp_path: Path,
    language: int,
) -> None:
    text = GREETINGS[language]
    voice = Kept()
    leg: list[Block] = []  # every block released to the speaker, silence included
    hooks = EngineHooks(released=(lambda block, _rate: leg.append(block.copy()),))
    objection = write_wav(tmp_path / "objection.wav", espeak("Sorry, do you have parking nearby?"))
    # Heard in English (tiny.en), spoken in German or Hindi: the legs may differ (seed 001).
    settings = Settings(
        voice=pb.VOICE_ESPEAK_FEMALE,
        tts_language=language,
        stt_language=pb.LANGUAGE_EN,
        idle_ms=0,
    )
    recording = tmp_path / "speaker.wav"
    async with (
        serving(lambda: Greeter(text)) as url,
        audio_call(
            url,
            transcriber,
            synthesizer,
            hooks=hooks,
            settings=settings,
            voices={voice.entry.voice: voice},
        ) as (host, engine, effects),
    ):
        with pulse.record_speaker(recording, rate=16000):
            await until(lambda: host.words_played >= 6)
            await asyncio.to_thread(pulse.play_into_mic, objection)
            await until(lambda: bool(sent(effects, "finalize")), 30)
        assert engine.synthesizer_for(pb.VOICE_ESPEAK_FEMALE) is voice
    greeting = host.core.units[0]
    assert greeting.fate is Fate.BARGED
    (finalize,) = [f for f in sent(effects, "finalize") if f.speech_id == greeting.speech_id]  # type: ignore[attr-defined]
    heard = finalize.heard_text  # type: ignore[attr-defined]
    assert heard == greeting.heard and text.startswith(heard) and heard != text
    # The speaker leg against the clips the voice made, in order: the words whose first
    # sample reached the speaker, and none after, are the heard text.
    played = np.concatenate(leg)
    words: list[str] = []
    at = 0
    for clip in voice.clips:
        at, count = released_prefix(played, clip.samples, at)
        words += [w.text for w in clip.words if heard_at(w) <= count]
        if count < len(clip.samples):
            break
        at += count
    assert 0 < len(words) < len(text.split())
    assert " ".join(words) == " ".join(heard.split()), (words, heard)
    samples, _rate = pulse.read_wav(recording)
    assert np.any(np.abs(samples) > 1000)  # the reply reached the virtual speaker
