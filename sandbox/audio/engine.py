"""The audio engine: devices, listening, speaking and the playout clock, wired to a CallHost.

Speaking: the core's effects go to :class:`SpeechOut` (Piper into the playout clock), whose
released words come back to the core as heard. Listening: capture blocks go through the
:class:`Listener` (echo canceller fed with what playout released, VAD, endpointing,
barge-in, Whisper) on a worker thread, and its events are posted to the host's loop, where
the core turns them into the wire. Models load once, with progress, before the call.
"""

from __future__ import annotations

import math
import queue
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from sandbox.audio.bargein import BargeIn
from sandbox.audio.echo import EchoCanceller
from sandbox.audio.listener import (
    Backchannel,
    CallerSpeaking,
    DroppedEmpty,
    Listener,
    ListenerEvent,
    TurnCommitted,
    in_executor,
)
from sandbox.audio.mic import DeviceMic, MicSource, WavMic
from sandbox.audio.playout import PlayoutClock
from sandbox.audio.sinks import AudioSink, Block, ClockedSink, DeviceSink, NullSink, WavSink
from sandbox.audio.speech_out import SpeechOut
from sandbox.audio.stt import Transcriber
from sandbox.audio.tts import Synthesizer
from sandbox.audio.voices import catalog, default_voice
from sandbox.call.effects import Effect, ListenWith
from sandbox.call.settings import Capabilities
from sandbox.errors import UserError
from sandbox.wire.catalog import LANGUAGE_BY_ISO

if TYPE_CHECKING:
    from sandbox.host.session import CallHost

Progress = Callable[[str], None]


@dataclass(frozen=True)
class AudioOptions:
    """``mic``: a device (index or name) or a WAV file; ``speaker``: a device, a WAV file to
    write, or "none" (silent, still paced in real time). None means the default device."""

    mic: str | None = None
    speaker: str | None = None
    aec: bool = True
    stt_model: str | None = None


@dataclass(frozen=True)
class TurnTiming:
    """The last committed turn, for the latency waterfall (host milliseconds)."""

    end_of_speech_ms: int
    committed_ms: int
    closed_by: str


def _is_wav(spec: str | None) -> bool:
    return spec is not None and spec.lower().endswith(".wav")


def _device(spec: str | None, direction: str) -> int | None:
    from sandbox.audio.devices import resolve_input, resolve_output

    if spec is None:
        return None
    key: int | str = int(spec) if spec.isdigit() else spec
    resolve = resolve_input if direction == "input" else resolve_output
    return resolve(key).index


@dataclass
class AudioEngine:
    """Owns the models and devices of one call. ``load`` first, then ``attach`` to a host."""

    options: AudioOptions = field(default_factory=AudioOptions)
    transcriber: Transcriber | None = None
    synthesizers: dict[int, Synthesizer] = field(default_factory=dict)
    speech: SpeechOut | None = None
    muted: bool = False
    mic_source: MicSource | None = None  # overrides options.mic (a scripted caller)
    #: Also told of every block playout releases (a simulated echo path listens here).
    release_hooks: list[Callable[[Block, int], None]] = field(default_factory=list)
    #: Told of every listener event with the host time it was decided (listener thread).
    listener_hooks: list[Callable[[int, ListenerEvent], None]] = field(default_factory=list)
    mic_level_db: float = -120.0
    last_turn: TurnTiming | None = None
    _host: CallHost | None = None
    _echo: EchoCanceller | None = None
    _mic: MicSource | None = None
    _listener: Listener | None = None
    _blocks: queue.Queue[tuple[Block, int] | None] = field(default_factory=queue.Queue)
    _worker: threading.Thread | None = None
    _stt_pool: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(1, thread_name_prefix="stt")
    )
    _voice_lock: threading.Lock = field(default_factory=threading.Lock)

    # --------------------------------------------------------------- loading

    def load(self, progress: Progress | None = None) -> None:
        """Load and warm Whisper and the default voice (seconds; call from a worker thread)."""
        say = progress or (lambda _m: None)
        self.transcriber = Transcriber.load(self.options.stt_model, progress=say)
        self.synthesizer_for(default_voice(), say)
        say("models ready")

    def synthesizer_for(self, voice: int, progress: Progress | None = None) -> Synthesizer:
        """The loaded voice, loading it on first use (a voice change mid-call)."""
        with self._voice_lock:
            found = self.synthesizers.get(voice)
            if found is None:
                entry = catalog().get(voice)
                if entry is None:
                    raise UserError(f"voice {voice} is not in the catalog")
                found = Synthesizer.load(entry, progress=progress)
                self.synthesizers[voice] = found
            return found

    def capabilities(self) -> Capabilities:
        """What this engine serves, for the core's Config checks."""
        from sandbox.audio.voices import languages_spoken

        heard = self.transcriber.languages if self.transcriber else frozenset({"en"})
        langs = {LANGUAGE_BY_ISO[code] for code in heard if code in LANGUAGE_BY_ISO}
        return Capabilities(languages_spoken=languages_spoken, stt_languages=langs)

    # ------------------------------------------------------------ building

    def playout(self) -> SpeechOut:
        """The host's playout: Piper into a playout clock on the chosen speaker."""
        if self.speech is None:
            rate = self.synthesizer_for(default_voice()).sample_rate
            sink = self._sink(rate)
            echo = EchoCanceller(enabled=self.options.aec)
            self._echo = echo

            def make_clock(**callbacks: Callable[..., None]) -> PlayoutClock:
                return PlayoutClock(sink, **callbacks)  # type: ignore[arg-type]

            def reference(block: Block) -> None:
                echo.feed_reference(block, rate)
                for hook in self.release_hooks:
                    hook(block, rate)

            self.speech = SpeechOut(self.synthesizer_for, make_clock, on_release=reference)
        return self.speech

    def _sink(self, rate: int) -> AudioSink | ClockedSink:
        spec = self.options.speaker
        if spec is not None and spec.lower() == "none":
            return NullSink(rate)
        if _is_wav(spec):
            assert spec is not None
            return WavSink(Path(spec), rate)
        return DeviceSink(_device(spec, "output"), rate)

    def _mic_source(self) -> MicSource:
        if self.mic_source is not None:
            return self.mic_source
        spec = self.options.mic
        if _is_wav(spec):
            assert spec is not None
            return WavMic(Path(spec))
        return DeviceMic(_device(spec, "input"))

    # ------------------------------------------------------------- running

    def attach(self, host: CallHost) -> None:
        """Start the speaker and the microphone for this call's host."""
        if self.transcriber is None:
            raise RuntimeError("load() the engine before attaching it")
        speech = self.playout()
        self._host = host
        speech.wake = lambda: host.post_threadsafe(_nothing)
        host.on_effect.append(self._on_effect)
        transcribe = in_executor(self.transcriber, self._stt_pool)
        self._listener = Listener(transcribe, echo=self._echo)
        speech.start()
        self._worker = threading.Thread(target=self._listen, name="listener", daemon=True)
        self._worker.start()
        self._mic = self._mic_source()
        self._mic.start(self._captured)

    def stop(self) -> None:
        """Stop the microphone, the listener and the speaker."""
        if self._mic is not None:
            self._mic.stop()
        self._blocks.put(None)
        if self._worker is not None:
            self._worker.join(timeout=5)
        if self.speech is not None:
            self.speech.stop()
        self._stt_pool.shutdown(wait=False, cancel_futures=True)

    def _on_effect(self, effect: Effect) -> None:
        if isinstance(effect, ListenWith) and self._listener is not None:
            self._listener.set_patience(effect.patience)
            self._listener.set_language(effect.language)

    def _captured(self, block: Block, rate: int) -> None:
        """On the capture thread: measure the level and hand the block on, never block."""
        if self.muted:
            block = np.zeros_like(block)
        rms = float(np.sqrt(np.mean(np.square(block.astype(np.float32) / 32768.0)) + 1e-12))
        self.mic_level_db = 20 * math.log10(rms)
        self._blocks.put((block, rate))

    def _listen(self) -> None:
        host, listener, speech = self._host, self._listener, self.speech
        assert host is not None and listener is not None and speech is not None
        while (item := self._blocks.get()) is not None:
            block, rate = item
            t_ms = host.now() - len(block) * 1000 // rate
            for event in listener.feed(block, rate, t_ms, speech.speaking):
                self._deliver(host, event)

    def _deliver(self, host: CallHost, event: ListenerEvent) -> None:
        for hook in self.listener_hooks:
            hook(host.now(), event)
        core = host.core
        if isinstance(event, CallerSpeaking):
            host.post_threadsafe(core.caller_speaking)
        elif isinstance(event, BargeIn):
            host.post_threadsafe(core.barge_in)
        elif isinstance(event, Backchannel):
            text = event.text
            host.post_threadsafe(lambda now: core.backchannel(text, now))
        elif isinstance(event, TurnCommitted):
            self.last_turn = TurnTiming(event.t_end_of_speech, host.now(), event.reason)
            text, reason = event.text, event.reason
            host.post_threadsafe(lambda now: core.caller_turn(text, now, closed_by=reason))
        elif isinstance(event, DroppedEmpty):
            host.post_threadsafe(core.caller_quiet)


def _nothing(_now: int) -> list[Effect]:
    """A wake-up for the host's loop: it drains the playout after every event."""
    return []
