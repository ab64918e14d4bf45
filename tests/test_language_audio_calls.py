"""A call in Hindi and one in German through PortAudio on PulseAudio's virtual devices: the
caller's espeak-ng line is heard by Whisper base in that language, the brain's reply is
spoken by espeak-ng's voice of that language, the caller's objection cuts it, and the
Finalize's heard text is the prefix the virtual speaker really emitted.

The speaker leg is checked outside the app's process: the virtual speaker's monitor is
recorded, and the reply's sound there must last past the start of its last heard word and
not to the start of the next one, counted in time that sounds (a late audio thread leaves
silent gaps at the device, which would stretch a span from first sound to last).
The reply is one sentence sent in one chunk, so the
playout speaks it as one clip, which the test renders again with the same voice (espeak-ng
is deterministic) to know where each word starts: the wire's rule is that a word counts once
its first sample is out.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import ClassVar

import numpy as np
import pytest
from audio_rig import audio_call, quiet, sent, until, while_playing
from caller_audio import espeak, join, silence, write_wav
from fixtures_bad_brains import WireBrain, served_in_thread

from sandbox.audio import multilingual_model
from sandbox.audio.espeak_tts import EspeakVoice
from sandbox.audio.recognizers import Recognizers
from sandbox.audio.resample import Float32
from sandbox.audio.stt import Transcriber, Transcript
from sandbox.audio.tts import Synthesizer
from sandbox.audio.voices import catalog, espeak_installed
from sandbox.call.settings import Settings
from sandbox.call.units import Fate
from sandbox.caller.espeak_voice import caller_voice
from sandbox.wire import pb
from sandbox.wire.catalog import language_name

pytestmark = [
    pytest.mark.audio,
    pytest.mark.skipif(
        not multilingual_model.installed(), reason="the languages extra is not installed"
    ),
    pytest.mark.skipif(not espeak_installed(), reason="espeak-ng is not installed"),
]

#: Full scale a speaker sample must pass to count as sound (espeak's quietest consonants
#: stay above it; the monitor's silence is zeros).
SOUND = 0.01
#: The frame sound is counted in.
FRAME_MS = 10
#: How far either side of the sound recorded a word's start may fall and still be judged
#: either way: a frame at each edge, the playout's 10 ms fade, a faded consonant.
SLACK_MS = 40


@dataclass(frozen=True)
class Language:
    """One language's call: the caller's question and objection, the brain's one-sentence
    reply, and a test of the transcript the brain was sent."""

    language: int
    question: str
    objection: str
    reply: str
    #: What the brain's transcript must hold (None: any words at all).
    holds: re.Pattern[str] | None


HINDI = Language(
    pb.LANGUAGE_HI,
    "नमस्ते मुझे एक क्लास बुक करनी है",
    "रुकिए मुझे पार्किंग के बारे में बताइए",
    "हमारा स्टूडियो हर दिन सुबह सात बजे खुलता है और रात को नौ बजे बंद होता है लेकिन"
    " रविवार को हम दोपहर में ही बंद कर देते हैं और सोमवार को फिर से खोलते हैं।",
    # Whisper base writes espeak's Hindi in Devanagari, in Urdu's script or in Latin
    # letters, as it pleases (docs/languages.md): the words are Hindi, the script is not known.
    None,
)
GERMAN = Language(
    pb.LANGUAGE_DE,
    "Guten Tag, ich möchte einen Kurs buchen.",
    "Moment bitte, haben Sie auch Parkplätze?",
    "Unser Studio öffnet jeden Tag um sieben Uhr morgens und schließt um neun Uhr abends"
    " aber am Sonntag schließen wir schon am frühen Nachmittag und am Montag öffnen wir"
    " erst gegen Mittag.",
    re.compile(r"\b(guten|tag|möchte|kurs)\b", re.IGNORECASE),
)


class HeardIn(Recognizers):
    """The call's recognizers, noting the language each clip was transcribed in."""

    def __init__(self, first: Transcriber) -> None:
        super().__init__(first)
        self.asked: list[str] = []

    def transcribe(
        self,
        pcm16k: Float32,
        *,
        language: str = "en",
        word_timestamps: bool = False,
        brief: bool = False,
    ) -> Transcript:
        self.asked.append(language)
        return super().transcribe(
            pcm16k, language=language, word_timestamps=word_timestamps, brief=brief
        )


class AnswersOnce(WireBrain):
    """Says nothing first; answers the caller's first line with one sentence in one chunk,
    and nothing after (the objection's answer would play into the recording)."""

    reply: ClassVar[str] = ""
    told: ClassVar[list[str]] = []

    async def on_start(self) -> None:
        pass

    async def on_message(self, turn: int, text: str) -> None:
        self.told.append(text)
        if len(self.told) == 1:
            sid = self.mint()
            await self.send(pb.SpeechStart(speech_id=sid, turn_id=turn))
            await self.send(pb.SpeechChunk(speech_id=sid, text=self.reply + " "))
            await self.send(pb.SpeechEnd(speech_id=sid))


def _brain(call: Language) -> type[AnswersOnce]:
    class Brain(AnswersOnce):
        pass

    Brain.reply, Brain.told = call.reply, []
    return Brain


def _sounding(samples: np.ndarray, rate: int) -> np.ndarray:
    """Per :data:`FRAME_MS` frame of ``samples`` (int16): does it sound (over :data:`SOUND`)."""
    frame = rate * FRAME_MS // 1000
    usable = len(samples) // frame * frame
    frames = np.abs(samples[:usable].astype(np.float32) / 32768.0).reshape(-1, frame)
    return np.asarray(frames.max(axis=1) > SOUND)


def _word_starts_ms(voice: EspeakVoice, call: Language) -> list[int]:
    """Where each word of the reply starts, in ms of sound before it: silence between
    words (and a late audio thread's gaps at the device) counts for nothing."""
    (clip,) = voice.synthesize(call.reply, language=call.language)
    loud = np.cumsum(_sounding(clip.samples, clip.sample_rate))
    frame = clip.sample_rate * FRAME_MS // 1000
    return [int(loud[min(w.start // frame, len(loud) - 1)]) * FRAME_MS for w in clip.words]


def _sound_ms(recording: np.ndarray, rate: int) -> int:
    """How long the recording sounds, in ms: its frames over :data:`SOUND`."""
    sounded = int(_sounding(recording, rate).sum()) * FRAME_MS
    assert sounded, "the virtual speaker emitted nothing"
    return sounded


@pytest.mark.parametrize(
    "call",
    [
        # Slow: under CI's load one run timed out and one judged the cut by a stretched span
        # (now counted in sounding time, unverified under load); its kind in CI is
        # test_language_calls' rules call.
        pytest.param(HINDI, id="hindi", marks=pytest.mark.slow),
        pytest.param(GERMAN, id="german", marks=pytest.mark.slow),
    ],
)
async def test_a_call_in_the_callers_language_is_heard_spoken_and_cut_as_it_sounded(
    call: Language,
    pulse: ModuleType,
    transcriber: Transcriber,
    synthesizer: Synthesizer,
    tmp_path: Path,
) -> None:
    voice = EspeakVoice.load(catalog()[pb.VOICE_ESPEAK_MALE])
    settings = Settings(pb.VOICE_ESPEAK_MALE, call.language, call.language, idle_ms=0)
    spoken = caller_voice(call.language)
    question = write_wav(
        tmp_path / "question.wav", join(silence(200), espeak(call.question, voice=spoken))
    )
    objection = write_wav(tmp_path / "objection.wav", join(espeak(call.objection, voice=spoken)))
    recording = tmp_path / "speaker.wav"
    brain, recognizer = _brain(call), HeardIn(transcriber)
    with served_in_thread(brain) as url:
        async with audio_call(
            url,
            recognizer,
            synthesizer,
            settings=settings,
            voices={pb.VOICE_ESPEAK_MALE: voice},
        ) as (host, _engine, effects):
            await until(lambda: host.core.state.name == "LISTENING")
            with pulse.record_speaker(recording, rate=16000):
                await asyncio.to_thread(pulse.play_into_mic, question)
                # The first model load (Whisper base) comes inside this wait.
                await until(lambda: bool(sent(effects, "user_message")), timeout=120)
                await while_playing(host, lambda: host.words_played >= 8)
                await asyncio.to_thread(pulse.play_into_mic, objection)
                await until(lambda: bool(sent(effects, "interruption")))
                await until(quiet(host))
                await asyncio.sleep(0.3)  # the cut's tail reaches the monitor
            reply = next(u for u in host.core.units if u.turn_id == 2)

    told, code = brain.told[0], language_name(call.language)
    assert set(recognizer.asked) == {code} and "multilingual" in recognizer.name
    assert told.strip() and (call.holds is None or call.holds.search(told)), told
    assert (reply.voice, reply.language) == (pb.VOICE_ESPEAK_MALE, call.language)
    assert reply.fate is Fate.BARGED
    heard, said = reply.heard.split(), call.reply.split()
    assert 0 < len(heard) < len(said) and heard == said[: len(heard)], reply.heard
    # The speaker leg: it sounded past the last heard word's start, not to the next's.
    samples, rate = pulse.read_wav(recording)
    emitted = _sound_ms(samples, rate)
    starts = _word_starts_ms(voice, call)
    begun = sum(start < emitted + SLACK_MS for start in starts)
    surely = sum(start < emitted - SLACK_MS for start in starts)
    assert surely <= len(heard) <= begun, (reply.heard, emitted, starts)
