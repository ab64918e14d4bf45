"""The audio engine: devices, listening, speaking and the playout clock, wired to a call.

Speaking: :class:`SpeechOut` (Piper into the playout clock) is the call's playout port, whose
released words come back to the core as heard. Listening: capture blocks go through the
:class:`Listener` (echo canceller fed with what playout released, VAD, endpointing,
barge-in, Whisper) on a worker thread, and its events go to the call through the small
:class:`CallLink` interface (the host maps them onto the core). Models load once, with
progress, before the call.

A device that goes away mid-call (unplugged, or dropped by its sound server) stops calling
back; a watcher notices within :data:`LOST_AFTER_S` and the call goes on without it: a lost
speaker is closed and playout paces on silently (words still heard on time, as in typed
mode), a lost microphone is closed (the caller types). :attr:`EngineHooks.lost` are told
in words.
"""

from __future__ import annotations

import logging
import math
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from sandbox.audio.audio_options import AudioOptions
from sandbox.audio.caller_aloud import CallerAloud
from sandbox.audio.echo_canceller import EchoCanceller
from sandbox.audio.espeak_tts import EspeakVoice
from sandbox.audio.line_path import DOWNLINK_SEED, UPLINK_SEED, LinePath
from sandbox.audio.listener import Listener, in_executor, judged_in
from sandbox.audio.mic import DeviceMic, MicSource
from sandbox.audio.playout import PlayoutClock
from sandbox.audio.recognizer import Recognizer, load_recognizer
from sandbox.audio.recognizers import Recognizers
from sandbox.audio.resample import Float32
from sandbox.audio.sinks import AudioSink, Block, ClockedSink, DeviceSink, NullSink, WavSink
from sandbox.audio.speech_out import SpeechOut
from sandbox.audio.tts import Synthesizer
from sandbox.audio.turn_model import TurnModel
from sandbox.audio.voice_engine import VoiceEngine
from sandbox.audio.voices import catalog, default_voice, voice_languages
from sandbox.audio.warm_up import warm_listening
from sandbox.call.caller_events import ListenerEvent
from sandbox.call.endpointing_steps import EndpointingStep
from sandbox.call.settings import Capabilities
from sandbox.errors import UserError
from sandbox.malloc_tuning import give_back_free_memory
from sandbox.wire.catalog import LANGUAGE_BY_ISO, voice_by_name

Progress = Callable[[str], None]
log = logging.getLogger(__name__)

#: How long a device may stay silent (no callback) before it counts as gone: longer than
#: the gaps a sound server leaves while a stream starts up.
LOST_AFTER_S = 2.5
#: How often the watcher looks.
WATCH_S = 0.25
#: What the call is told when a device goes away.
SPEAKER_LOST = (
    "The speaker went away mid-call: the call goes on without sound. Replies play on "
    "silently at speaking pace, so heard text and cuts stay real; type below to talk."
)
MIC_LOST = (
    "The microphone went away mid-call: the call goes on in typed mode. Type what the "
    "caller says below; replies still play."
)
#: Queued for the listener's thread when the recognizer finishes a job between blocks.
_RESULT_READY = "result ready"


class CallLink(Protocol):
    """What the engine needs of the call it serves; the call's host provides it (and takes
    the engine as its ``listening`` port when it is built: see ``open_call``)."""

    def now(self) -> int:
        """The call's clock, in milliseconds."""

    def heard(self, event: ListenerEvent) -> None:
        """What the listener decided about the caller (called from the listener's thread)."""

    def wake(self) -> None:
        """Playout released something: drain it (called from the audio thread)."""


@dataclass(frozen=True)
class EngineHooks:
    """Who else hears of a call's audio, given once, when the engine starts on the call
    (:meth:`AudioEngine.start`): its legs and endpointing steps need the session the dial
    made. Each callback runs on the engine's thread named, so it must not block."""

    #: Each capture block's arrival, at the host time it arrived, before the listener has it
    #: (the capture thread).
    captured: tuple[Callable[[int], None], ...] = ()

    #: Every block playout releases, with its rate (the playout thread).
    released: tuple[Callable[[Block, int], None], ...] = ()
    #: Every listener event, with the host time it was decided (the listener thread).
    heard: tuple[Callable[[int, ListenerEvent], None], ...] = ()
    #: Every capture block after echo cancellation: (16 kHz float samples, the host time of
    #: its first sample), the microphone as the call heard it (the listener thread).
    cleaned: tuple[Callable[[Float32, int], None], ...] = ()
    #: Every endpointing step (see ``Listener.on_decision``) (the listener thread).
    decided: tuple[Callable[[int, EndpointingStep], None], ...] = ()
    #: A device that went away mid-call, in words (the watcher thread).
    lost: tuple[Callable[[str], None], ...] = ()

    def __add__(self, other: EngineHooks) -> EngineHooks:
        """Both sets of hooks, this one's told first."""
        return EngineHooks(
            self.captured + other.captured,
            self.released + other.released,
            self.heard + other.heard,
            self.cleaned + other.cleaned,
            self.decided + other.decided,
            self.lost + other.lost,
        )


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
    """Owns the models and devices of one call. ``load`` first; then ``start`` on a host
    built with it as its ``listening`` port, given everything the call needs of it."""

    options: AudioOptions = field(default_factory=AudioOptions)
    #: The recognizer the call listens with: by default :class:`Recognizers` around the
    #: one ``options.stt_model`` names, which moves with stt.language.
    transcriber: Recognizer | None = None
    #: The audio turn model (Smart Turn, shipped in the package); loaded with Whisper.
    turn_model: TurnModel | None = None
    synthesizers: dict[int, VoiceEngine] = field(default_factory=dict)
    speech: SpeechOut | None = None
    muted: bool = False
    mic_source: MicSource | None = None  # overrides options.mic (a WAV file, a scripted caller)
    #: Overrides options.speaker: builds the sink at the playout rate (a scripted caller's
    #: duplex speaker, :meth:`ScriptMic.speaker`).
    speaker_sink: Callable[[int], AudioSink | ClockedSink] | None = None
    #: Mixes a scripted caller's voice into the speaker, after playout (a demo's caller).
    caller_aloud: CallerAloud | None = None
    mic_level_db: float = -120.0
    #: Capture blocks taken from the microphone, and those the listener has heard with their
    #: events handed to the call: a caller that stops can wait for its last block to be heard.
    blocks_captured: int = 0
    blocks_heard: int = 0
    mic_lost: bool = False
    speaker_lost: bool = False
    _last_block_at: float | None = None
    _last_rate: int = 16000  # the microphone's, for the silence a lost one leaves
    _halt: threading.Event = field(default_factory=threading.Event)
    _caller_settled: bool = True
    _link: CallLink | None = None
    _hooks: EngineHooks = field(default_factory=EngineHooks)
    _echo: EchoCanceller | None = None
    _mic: MicSource | None = None
    #: The caller's side of the line (their audio on its way to the call), at the mic's rate.
    _uplink: LinePath | None = None
    _listener: Listener | None = None
    #: (block, rate, host ms of its first sample): stamped as captured, so a listener that
    #: falls behind still times the caller's speech where it happened.
    _blocks: queue.Queue[tuple[Block, int, int] | str | None] = field(default_factory=queue.Queue)
    _worker: threading.Thread | None = None
    _stt_pool: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(1, thread_name_prefix="stt")
    )
    _voice_lock: threading.Lock = field(default_factory=threading.Lock)

    # --------------------------------------------------------------- loading

    def load(self, progress: Progress | None = None) -> None:
        """Load Whisper, the turn model and the default voice, and run Whisper, the pitch
        track and the voice once so the call's first turn pays no first-run cost (call from
        a worker thread)."""
        say = progress or (lambda _m: None)
        if self.transcriber is None:  # an engine built with a loaded one keeps it
            self.transcriber = Recognizers(load_recognizer(self.options.stt_model, say), say)
        if self.turn_model is None:
            self.turn_model = TurnModel.load()
        warm_listening(self.transcriber, say)  # paid here, not on the first turn
        self.synthesizer_for(default_voice(), say)
        say("models ready")

    def synthesizer_for(self, voice: int, progress: Progress | None = None) -> VoiceEngine:
        """The loaded voice, loading it on first use (a voice change mid-call)."""
        with self._voice_lock:
            found = self.synthesizers.get(voice)
            plugged = self.options.voice
            if found is None and plugged is not None and voice_by_name(plugged.name) == voice:
                found = self.synthesizers[voice] = plugged
            if found is None:
                entry = catalog().get(voice)
                if entry is None:
                    raise UserError(f"voice {voice} is not in the catalog")
                load = EspeakVoice.load if entry.kind == "espeak" else Synthesizer.load
                found = load(entry, progress=progress)
                self.synthesizers[voice] = found
            return found

    def capabilities(self) -> Capabilities:
        """What this engine serves, for the core's Config checks: a snapshot taken now."""
        heard = self.transcriber.languages if self.transcriber else frozenset({"en"})
        langs = frozenset(LANGUAGE_BY_ISO[code] for code in heard if code in LANGUAGE_BY_ISO)
        missing = self.transcriber.missing if isinstance(self.transcriber, Recognizers) else ""
        voices = voice_languages()
        plugged = self.options.voice
        if plugged is not None:
            voices[voice_by_name(plugged.name)] = plugged.languages
        return Capabilities(voices=voices, stt_languages=langs, stt_missing=missing)

    # ------------------------------------------------------------ building

    def output_rate(self) -> int:
        """The speaker's sample rate: the default voice's."""
        return self.synthesizer_for(default_voice()).sample_rate

    def playout(self) -> SpeechOut:
        """The host's playout: Piper into a playout clock on the chosen speaker."""
        if self.speech is None:
            rate = self.output_rate()
            sink = self._sink(rate)
            echo = EchoCanceller(enabled=self.options.aec)
            self._echo = echo

            line = self.options.line
            downlink = LinePath(line, rate, DOWNLINK_SEED) if line.is_line else None
            # What the speaker plays, the echo canceller's reference and the speaker leg are
            # all the line's far end: the caller's side of the call.
            shape = downlink.process if downlink is not None else None

            def make_clock(**callbacks: Callable[..., None]) -> PlayoutClock:
                return PlayoutClock(sink, line=shape, **callbacks)  # type: ignore[arg-type]

            def reference(block: Block) -> None:
                echo.feed_reference(block, rate)
                for hook in self._hooks.released:
                    hook(block, rate)

            # A reply synthesized: give back what Piper and Whisper freed this turn.
            self.speech = SpeechOut(
                self.synthesizer_for,
                make_clock,
                on_release=reference,
                on_idle=give_back_free_memory,
            )
        return self.speech

    def _sink(self, rate: int) -> AudioSink | ClockedSink:
        sink = self._own_sink(rate)
        return self.caller_aloud.wrap(sink) if self.caller_aloud is not None else sink

    def _own_sink(self, rate: int) -> AudioSink | ClockedSink:
        if self.speaker_sink is not None:
            return self.speaker_sink(rate)
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
        return DeviceMic(_device(self.options.mic, "input"))

    # ------------------------------------------------------------- running

    def start(self, link: CallLink, hooks: EngineHooks | None = None) -> None:
        """Start the speaker and the microphone for the call ``link`` runs; ``hooks`` hear of
        its audio."""
        if self.transcriber is None:
            raise RuntimeError("load() the engine before starting it")
        speech = self.playout()
        self._link = link
        self._hooks = hooks or EngineHooks()
        ready = self._result_ready
        transcribe = in_executor(self.transcriber, self._stt_pool, on_done=ready)
        if self.turn_model is None:  # an engine built with a loaded transcriber only
            self.turn_model = TurnModel.load()
        judge = judged_in(self.turn_model, self._stt_pool, on_done=ready)
        brief = in_executor(self.transcriber, self._stt_pool, brief=True, on_done=ready)
        self._listener = Listener(
            transcribe,
            echo=self._echo,
            judge_turn=judge,
            read_brief=brief,
            narrowband=self.options.line.narrowband,
        )
        self._listener.on_cleaned = self._cleaned
        self._listener.on_decision = self._decided
        speech.start(wake=link.wake, now_ms=link.now)
        self._worker = threading.Thread(target=self._listen, name="listener", daemon=True)
        self._worker.start()
        self._mic = self._mic_source()
        self._mic.start(self._captured)
        threading.Thread(target=self._watch, name="device-watch", daemon=True).start()

    def stop(self) -> None:
        """Stop the microphone, the listener and the speaker."""
        self._halt.set()
        if self._mic is not None and not self.mic_lost:
            self._mic.stop()
        self._blocks.put(None)
        if self._worker is not None:
            self._worker.join(timeout=5)
        if self.speech is not None:
            self.speech.stop()
        self._stt_pool.shutdown(wait=False, cancel_futures=True)

    def heard_out(self, through: int) -> bool:
        """Whether the listener has heard capture block ``through`` and every one before it,
        handed their events to the call, and holds nothing of the caller (no turn open, none
        waiting for its transcript)."""
        return self.blocks_heard >= through and self._caller_settled

    def listen_with(self, language: str, patience: int) -> None:
        """The call's recognizer settings changed (the core's ListenWith): a language's
        recognizer not loaded yet is loaded now, on Whisper's worker, ahead of the first turn
        heard in it."""
        if isinstance(self.transcriber, Recognizers) and not self._halt.is_set():
            self._stt_pool.submit(self._prepare, self.transcriber, language)
        if self._listener is not None:
            self._listener.set_patience(patience)
            self._listener.set_language(language)

    def _prepare(self, recognizers: Recognizers, language: str) -> None:
        try:
            recognizers.for_language(language)
        except UserError as exc:  # a damaged model: logged here, met again by the first read
            log.warning("the recognizer for %s did not load: %s", language, exc)

    def _decided(self, t_ms: int, step: EndpointingStep) -> None:
        for hook in self._hooks.decided:
            hook(t_ms, step)

    def _cleaned(self, samples: Float32, t_ms: int) -> None:
        for hook in self._hooks.cleaned:
            hook(samples, t_ms)

    def _watch(self) -> None:
        """Until stopped: close a device that has gone quiet for good and say so."""
        speech = self.speech
        assert speech is not None
        while not self._halt.wait(WATCH_S):
            if not self.speaker_lost and speech.clock.stalled_s() > LOST_AFTER_S:
                speech.clock.lose_device()
                self.speaker_lost = True
                self._lost(SPEAKER_LOST)
            last = self._last_block_at
            quiet = last is not None and time.monotonic() - last > LOST_AFTER_S
            if not self.mic_lost and quiet and isinstance(self._mic, DeviceMic):
                self.mic_lost = True
                try:
                    self._mic.stop()
                except Exception:  # a device that vanished may fail to close; dropped anyway
                    log.warning("closing a microphone that went away failed", exc_info=True)
                self._lost(MIC_LOST)
            if self.mic_lost and not self._caller_settled:
                # The caller was mid-turn: from here on the listener hears silence in real
                # time, so the turn closes as it would have and what was said is committed.
                self._put(np.zeros(int(self._last_rate * WATCH_S), dtype=np.int16), self._last_rate)

    def _lost(self, words: str) -> None:
        log.warning("%s", words)
        for hook in self._hooks.lost:
            hook(words)

    def _captured(self, block: Block, rate: int) -> None:
        """On the capture thread: measure the level and hand the block on, never block."""
        self._last_block_at = time.monotonic()
        self._last_rate = rate
        if self.muted:
            block = np.zeros_like(block)
        rms = float(np.sqrt(np.mean(np.square(block.astype(np.float32) / 32768.0)) + 1e-12))
        self.mic_level_db = 20 * math.log10(rms)  # the caller's own level, before the line
        if self.options.line.is_line:
            if self._uplink is None or self._uplink.rate != rate:
                self._uplink = LinePath(self.options.line, rate, UPLINK_SEED)
            block = self._uplink.process(block)
        self.blocks_captured += 1
        if self._hooks.captured:
            assert self._link is not None
            arrived = self._link.now()
            for hook in self._hooks.captured:
                hook(arrived)
        self._put(block, rate)

    def _put(self, block: Block, rate: int) -> None:
        """Queue a block for the listener, stamped with when its first sample was captured."""
        assert self._link is not None
        self._blocks.put((block, rate, self._link.now() - len(block) * 1000 // rate))

    def _result_ready(self) -> None:
        """From the recognizer's thread: a transcription or the turn model finished."""
        self._blocks.put(_RESULT_READY)

    def _listen(self) -> None:
        link, listener, speech = self._link, self._listener, self.speech
        assert link is not None and listener is not None and speech is not None
        while (item := self._blocks.get()) is not None:
            if isinstance(item, str):  # _RESULT_READY
                # Taken as it lands: a guess back after its window closes the turn now, not
                # at the next block (20 ms on) and its next whole frame (30 ms).
                events = listener.poll(link.now())
            else:
                block, rate, t_ms = item
                events = listener.feed(block, rate, t_ms, speech.speaking)
            for event in events:
                now = link.now()
                for hook in self._hooks.heard:
                    hook(now, event)
                link.heard(event)
            # Settled first: a reader that sees the count sees this block's state or later.
            self._caller_settled = listener.settled
            self.blocks_heard += not isinstance(item, str)
