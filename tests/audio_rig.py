"""Real-audio calls for the tests: the real audio engine (PortAudio on PulseAudio's virtual
devices unless a microphone is given), a real brain over a real socket, and the waits for
them."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path

from caller_audio import espeak, join, silence, write_wav

from sandbox.audio.audio_options import AudioOptions, phone_line
from sandbox.audio.engine import AudioEngine, EngineHooks
from sandbox.audio.mic import MicSource
from sandbox.audio.recognizer import Recognizer
from sandbox.audio.script_mic import ScriptMic
from sandbox.audio.tts import Synthesizer
from sandbox.audio.voice_engine import VoiceEngine
from sandbox.audio.voices import default_voice
from sandbox.call.effects import CallState, Effect, SendFrame
from sandbox.call.settings import Settings
from sandbox.harness.builtin import brain_url_for
from sandbox.host.launch import BUILTIN_BRAIN, CallOptions, open_call
from sandbox.host.session import CallHost
from sandbox.line.profile import DEFAULT_LINE, PROFILES, LineProfile


@contextlib.asynccontextmanager
async def audio_call(
    brain: str,
    transcriber: Recognizer,
    synthesizer: Synthesizer,
    *,
    settings: Settings | None = None,
    speaker: str | None = None,
    mic: MicSource | None = None,
    aec: bool = True,
    hooks: EngineHooks | None = None,
    line: LineProfile = PROFILES[DEFAULT_LINE],
    voices: Mapping[int, VoiceEngine] | None = None,
) -> AsyncIterator[tuple[CallHost, AudioEngine, list[Effect]]]:
    """A call with the real audio engine on ``line``, ``hooks`` given, starting with
    ``settings`` (default: joe in English, idle off); the host runs in the background.
    ``brain`` is a built-in brain's name or a URL to dial; ``voices``: loaded voices beside
    the default one."""
    engine = AudioEngine(
        AudioOptions(speaker=speaker, aec=aec, line=line),
        transcriber=transcriber,
        synthesizers={default_voice(): synthesizer, **(voices or {})},
        mic_source=mic,
        speaker_sink=mic.speaker if isinstance(mic, ScriptMic) else None,
    )
    url = brain if brain.startswith("ws://") else None
    options = CallOptions(
        settings=settings or Settings(idle_ms=0),
        builtin=BUILTIN_BRAIN if url else brain,
        brain_url=url,
        line=phone_line(line),
    )
    effects: list[Effect] = []
    async with brain_url_for(options) as url:
        host = await open_call(
            options, url, engine.playout(), caps=engine.capabilities(), listening=engine
        )
        host.on_effect.append(effects.append)
        engine.start(host, hooks)
        running = asyncio.create_task(host.run())
        try:
            yield host, engine, effects
        finally:
            if host.core.ended is None:
                host.hang_up()
            await asyncio.wait_for(running, 20)
            engine.stop()


def quiet(host: CallHost) -> Callable[[], bool]:
    """The greeting (or the last reply) has played out and the call is listening."""
    return lambda: host.core.state is CallState.LISTENING and bool(host.core.units)


async def until(predicate: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def while_playing(host: CallHost, predicate: Callable[[], bool], stall: float = 20.0) -> None:
    """Wait for ``predicate`` as long as the call moves on: a loaded machine's audio thread
    plays the bot slower than real time, so the deadline is for a stall (no word played and
    no change of state for ``stall`` seconds), not for the length of the audio."""
    loop = asyncio.get_running_loop()
    seen, deadline = (host.words_played, host.core.state), loop.time() + stall
    while not predicate():
        if (host.words_played, host.core.state) != seen:
            seen, deadline = (host.words_played, host.core.state), loop.time() + stall
        assert loop.time() < deadline, f"stalled for {stall} s at (words played, state) {seen}"
        await asyncio.sleep(0.02)


def sent(effects: list[Effect], arm: str) -> list[object]:
    return [
        getattr(e.env, arm) for e in effects if isinstance(e, SendFrame) and e.env.HasField(arm)
    ]


def caller_wav(tmp_path: Path, text: str) -> Path:
    return write_wav(tmp_path / "caller.wav", join(silence(200), espeak(text), silence(200)))
