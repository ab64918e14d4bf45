"""A call heard in German through real audio: PortAudio on PulseAudio virtual devices,
webrtcvad, Whisper base from the ``languages`` extra, Piper's English voice, a real brain
over a real socket."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import ModuleType

import pytest
from audio_rig import audio_call, quiet, sent, until, while_playing
from caller_audio import espeak, join, silence, word_errors, write_wav

from sandbox.audio import multilingual_model
from sandbox.audio.backchannels import Burst, classify
from sandbox.audio.engine import EngineHooks
from sandbox.audio.recognizers import Recognizers
from sandbox.audio.stt import Transcriber
from sandbox.audio.tts import Synthesizer
from sandbox.call.caller_events import Backchannel
from sandbox.call.effects import CallState
from sandbox.call.settings import Settings
from sandbox.paths import HOME_ENV
from sandbox.wire import pb

pytestmark = [
    pytest.mark.audio,
    pytest.mark.skipif(
        not multilingual_model.installed(), reason="the languages extra is not installed"
    ),
]

HEARD_IN_GERMAN = Settings(tts_language=pb.LANGUAGE_EN, stt_language=pb.LANGUAGE_DE, idle_ms=0)


async def test_a_german_caller_reaches_the_brain_in_german_and_a_german_nod_is_no_turn(
    pulse: ModuleType,
    transcriber: Transcriber,
    synthesizer: Synthesizer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The call starts heard in German (001: the legs may differ, the voice speaks English):
    the caller's German line is one German UserMessage; their "Stimmt" over the reply is
    a German backchannel: the bot goes on and it never becomes a turn."""
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))  # where Whisper base is joined
    said = "Guten Tag, ich habe eine Frage."
    line = write_wav(tmp_path / "line.wav", join(silence(200), espeak(said, voice="de", wpm=150)))
    # "Stimmt" ("right"): of German's nods, the one Whisper base reads steadily from espeak-ng
    # ("Genau" comes back as "Ciao"); English's words would leave it unclear.
    nod = write_wav(tmp_path / "nod.wav", espeak("Stimmt.", voice="de", wpm=150))
    heard: list[object] = []  # what the listener decided, for a failure's message
    hooks = EngineHooks(heard=(lambda _now, event: heard.append(event),))
    recognizers = Recognizers(transcriber, extra=True)
    async with audio_call(
        "concierge", recognizers, synthesizer, settings=HEARD_IN_GERMAN, hooks=hooks
    ) as (host, _engine, effects):
        await while_playing(host, quiet(host))
        await asyncio.to_thread(pulse.play_into_mic, line)
        await until(lambda: bool(sent(effects, "user_message")))
        await while_playing(host, lambda: host.words_played >= 22)
        await asyncio.to_thread(pulse.play_into_mic, nod)
        await while_playing(
            host, lambda: host.core.state is CallState.LISTENING and len(host.core.units) > 1
        )
    told = [m.text for m in sent(effects, "user_message")]  # type: ignore[attr-defined]
    units = [(u.turn_id, u.generated, u.fate) for u in host.core.units]
    assert len(told) == 1, (told, units, heard)  # the nod never became a turn
    (message,) = sent(effects, "user_message")
    text = message.text  # type: ignore[attr-defined]
    assert word_errors(said, text) <= 1, text
    assert sent(effects, "interruption") == [], heard
    # The nod was read in German and is one of its backchannels (the bot went on, on that
    # read or, on a busy machine, before it came back).
    nods = [e.text for e in heard if isinstance(e, Backchannel)]
    assert nods and all(classify(nod, "de") is Burst.BACKCHANNEL for nod in nods), heard
    assert recognizers.name == "Whisper tiny.en + Whisper base (multilingual)"
    assert "hear de" in host.core.settings.describe()
