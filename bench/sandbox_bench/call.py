"""A bench call: the real audio engine, a built-in brain over a real socket, a timed mic.

Everything that happens is logged with the host's clock (milliseconds since the call began):
the core's effects as the host carries them out, every block the playout releases (and
whether it was silent), and every event the listener hands the core.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import numpy as np

from sandbox.audio.echo_path import LaptopEchoPath
from sandbox.audio.engine import AudioEngine, EngineHooks
from sandbox.audio.script_mic import ScriptMic
from sandbox.audio.sinks import Block
from sandbox.call.caller_events import ListenerEvent
from sandbox.call.effects import CallState, Effect
from sandbox.call.settings import Settings
from sandbox.call.turn_records import TurnKind, TurnSent
from sandbox.call.unit_records import WatermarkRaised
from sandbox.harness.builtin import brain_url_for
from sandbox.host.launch import CallOptions, open_call
from sandbox.host.session import CallHost
from sandbox_bench.mic import CallerLine, Spoken, TimedMic
from sandbox_bench.models import Models

#: Longest the bench waits for any one thing in a call before giving up on it.
WAIT_S = 60.0


@dataclass
class CallLog:
    """What happened in a call, each entry stamped with host milliseconds."""

    effects: list[tuple[int, Effect]] = field(default_factory=list)
    #: (ms, how long the block sounded: ms up to its last sounding sample; 0 when silent).
    releases: list[tuple[int, float]] = field(default_factory=list)
    events: list[tuple[int, ListenerEvent]] = field(default_factory=list)

    def caller_turns(self) -> list[tuple[int, TurnSent]]:
        """Each caller turn the core sent (its UserMessage), by the core's record of it,
        with when it went out (the record follows its frame in the same batch)."""
        return [
            (t, e) for t, e in self.effects if isinstance(e, TurnSent) and e.kind is TurnKind.CALLER
        ]

    def interruptions(self) -> list[int]:
        """When each Interruption went out, by the core's record of it (the watermark it
        raised, which follows its frame in the same batch)."""
        return [t for t, e in self.effects if isinstance(e, WatermarkRaised)]

    def turn_after(self, t_ms: float) -> tuple[int, TurnSent] | None:
        """The first caller turn sent at or after ``t_ms``, with when."""
        return next(((t, sent) for t, sent in self.caller_turns() if t >= t_ms), None)

    def interruption_after(self, t_ms: float) -> int | None:
        """When the first Interruption at or after ``t_ms`` went out."""
        return next((t for t in self.interruptions() if t >= t_ms), None)


@dataclass
class BenchCall:
    """A running bench call."""

    host: CallHost
    engine: AudioEngine
    mic: TimedMic
    log: CallLog


@contextlib.asynccontextmanager
async def bench_call(
    models: Models, brain: str, *, echo: LaptopEchoPath | None = None
) -> AsyncIterator[BenchCall]:
    """A call with the real engine (AEC on, no speaker) to a built-in brain, idle nudges off."""
    log = CallLog()
    script = ScriptMic(echo)
    mic = TimedMic(script)
    # The speaker is the mic's own (duplex) one: what the bot plays is what the echo path
    # feeds back into the microphone.
    engine = AudioEngine(
        models.engine_options(),
        transcriber=models.transcriber,
        synthesizers=models.synthesizers(),
        mic_source=mic,
        speaker_sink=script.speaker,
    )
    options = CallOptions(settings=Settings(idle_ms=0), builtin=brain)
    async with brain_url_for(options) as url:
        host = await open_call(
            options, url, engine.playout(), caps=engine.capabilities(), listening=engine
        )
        host.on_effect.append(lambda effect: log.effects.append((host.now(), effect)))
        engine.start(
            host,
            EngineHooks(
                captured=(mic.arrived,),
                released=(_release_logger(host, log),),
                heard=(lambda t_ms, event: log.events.append((t_ms, event)),),
            ),
        )
        running = asyncio.create_task(host.run())
        try:
            yield BenchCall(host, engine, mic, log)
        finally:
            if host.core.ended is None:
                host.hang_up()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(running, 20)
            engine.stop()


def _release_logger(host: CallHost, log: CallLog) -> Callable[[Block, int], None]:
    def released(block: Block, rate: int) -> None:
        sounding = np.flatnonzero(block)
        log.releases.append((host.now(), (sounding[-1] + 1) * 1000 / rate if len(sounding) else 0))

    return released


async def until(predicate: Callable[[], bool], timeout_s: float = WAIT_S) -> bool:
    """Poll ``predicate`` until it holds or the timeout passes; whether it held."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not predicate():
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(0.01)
    return True


def listening(host: CallHost) -> Callable[[], bool]:
    """Everything said so far has played out (or been cut) and the call waits for the caller."""
    core = host.core
    return lambda: core.state is CallState.LISTENING and all(u.fate is not None for u in core.units)


def turn_sent_after(log: CallLog, t_ms: float) -> Callable[[], bool]:
    """Whether a caller turn has been sent at or after ``t_ms``."""
    return lambda: log.turn_after(t_ms) is not None


def interrupted_after(log: CallLog, t_ms: float) -> Callable[[], bool]:
    """Whether an Interruption has been sent at or after ``t_ms``."""
    return lambda: log.interruption_after(t_ms) is not None


def answered(host: CallHost, turn: int) -> Callable[[], bool]:
    """Whether the brain opened a unit answering ``turn``."""
    return lambda: any(u.turn_id == turn for u in host.core.units)


async def say(call: BenchCall, line: CallerLine) -> Spoken:
    """Speak ``line`` into the call's microphone and wait until all of it was delivered."""
    spoken = call.mic.say(line)
    await until(lambda: spoken.voice_end_ms is not None)
    return spoken
